package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
)

// findingsLine is the part of a --json line the findings tests read.
type findingsLine struct {
	Snapshot     int               `json:"snapshot"`
	Findings     []analyze.Finding `json:"findings"`
	FindingsFrom int               `json:"findings_from"`
	Clear        []string          `json:"clear"`
}

// claims lists the findings as one line each (analyze.Finding.String).
func claims(fs []analyze.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// TestWatchFindings: watch shows analyze's verdicts — the same findings,
// claims and evidence as stackdump analyze gives of the same process — in
// its table, --json and the metrics. On a real program where 40
// goroutines wait for a mutex whose holder sleeps (testdata/gen/judged
// mutex40): contention, said in the table with its evidence, in --json
// whole, counted in stackdump_findings{kind="contention"} (every kind
// present) and stackdump_finding_routines.
func TestWatchFindings(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartArgs(ctx, t, "judged", "mutex40")
	resp, err := http.Get(p.URL + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _, err := analyze.SummarizeNext(formats.NewReader(bytes.NewReader(text), formats.ReadOptions{}), analyze.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(want.Findings, func(f analyze.Finding) bool { return f.Kind == analyze.FindingContention }) {
		t.Fatalf("analyze finds no contention in mutex40: %v", claims(want.Findings))
	}

	stdout, stderr, err := runCLI(t, "watch", p.URL, "--count", "2", "--every", "10ms", "--max-pause", "0", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for i, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var fl findingsLine
		if err := json.Unmarshal([]byte(l), &fl); err != nil {
			t.Fatal(err)
		}
		if fl.FindingsFrom != i+1 || !slices.Equal(claims(fl.Findings), claims(want.Findings)) || !slices.Equal(fl.Clear, want.Clear()) {
			t.Errorf("snapshot %d: findings of snapshot %d %q, clear %q; analyze's %q, %q", i+1, fl.FindingsFrom, claims(fl.Findings), fl.Clear, claims(want.Findings), want.Clear())
		}
		for j, f := range fl.Findings[:min(len(fl.Findings), len(want.Findings))] {
			if len(f.Evidence) == 0 || f.Evidence[0].Text != want.Findings[j].Evidence[0].Text {
				t.Errorf("snapshot %d, finding %d: evidence %v, analyze's %v", i+1, j+1, f.Evidence, want.Findings[j].Evidence)
			}
		}
	}

	table, stderr, err := runCLI(t, "watch", p.URL, "--count", "1", "--max-pause", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"  findings:\n    CONTENTION (certain) 40 goroutines wait for one sync.Mutex at main.(*store).get", "        · "} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}

	w, url := newTestWatcher(t, []string{p.URL}, 0, watchOptions{})
	w.round(ctx)
	fams := scrape(t, url)
	kinds := map[string]float64{}
	for _, m := range fams["stackdump_findings"].GetMetric() {
		kinds[label(m, "kind")] = value(m)
	}
	if len(kinds) != len(analyze.FindingKinds()) || kinds["contention"] < 1 {
		t.Errorf("stackdump_findings by kind %v: want every kind, contention at least 1", kinds)
	}
	found := false
	for _, m := range fams["stackdump_finding_routines"].GetMetric() {
		if label(m, "kind") == "contention" && strings.Contains(label(m, "where"), "main.(*store).get") && value(m) == 40 && label(m, "confidence") == "certain" {
			found = true
		}
	}
	if !found {
		t.Errorf("no stackdump_finding_routines{kind=\"contention\",where=~\"main.(*store).get\"} 40: %v", fams["stackdump_finding_routines"])
	}
}

// TestWatchFindingsGrowth: three snapshots of a leak growing beside a
// healthy pool (judged leak, "next" between rounds): by the third, watch
// gives analyze's verdict on the growth across its snapshots of the
// target, with the counts as evidence — the same as stackdump analyze
// gives of three captures in order.
func TestWatchFindingsGrowth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartArgs(ctx, t, "judged", "leak")
	o := watchOptions{top: 5, leakAfter: 2}
	w, _ := newTestWatcher(t, []string{p.URL}, 0, o)
	var last findingsLine
	for i := range 3 {
		if i > 0 {
			p.Send(t, "next")
		}
		out := w.round(ctx)
		if len(out) != 1 || out[0].err != nil {
			t.Fatalf("round %d: %+v", i+1, out)
		}
		var js strings.Builder
		if err := writeWatchJSON(&js, out[0].target, o); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(js.String()), &last); err != nil {
			t.Fatal(err)
		}
	}
	grew := slices.ContainsFunc(last.Findings, func(f analyze.Finding) bool {
		return strings.Contains(f.Claim, "main.fetchQuote") && slices.ContainsFunc(f.Evidence, func(e analyze.Evidence) bool {
			return e.Kind == analyze.EvidenceGrowth && strings.Contains(e.Text, "100 → 200 → 300")
		})
	})
	if !grew {
		t.Errorf("the third snapshot's findings %q: want main.fetchQuote's growth 100 → 200 → 300 as evidence", claims(last.Findings))
	}
	for _, f := range last.Findings {
		if strings.Contains(f.Claim, "(*pool).work") && (f.Kind == analyze.FindingLikelyLeak || f.Kind == analyze.FindingGrowth) {
			t.Errorf("the healthy pool is called a leak: %s", f)
		}
	}
}
