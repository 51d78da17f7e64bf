package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/internal/livechild"
)

// reportParked blocks until ch closes: the goroutines the report must find.
func reportParked(ch chan struct{}) { <-ch }

// parkGoroutines starts n more goroutines in reportParked and waits
// until total of them are blocked there, as a profile shows them.
func parkGoroutines(t *testing.T, ch chan struct{}, n, total int) {
	t.Helper()
	for range n {
		go reportParked(ch)
	}
	deadline := time.Now().Add(10 * time.Second)
	for parkedCount(goroutineDebug1(t)) != total {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines never all parked", total)
		}
		time.Sleep(time.Millisecond)
	}
}

// parkedCount reads the count of the reportParked record of a debug=1
// goroutine profile ("N @ 0x…" then "#	0x…	pkg.reportParked+0x…").
func parkedCount(profile []byte) int {
	for _, rec := range strings.Split(string(profile), "\n\n") {
		if !strings.Contains(rec, ".reportParked+") {
			continue
		}
		for _, line := range strings.Split(rec, "\n") {
			if count, _, ok := strings.Cut(line, " @ "); ok {
				n, _ := strconv.Atoi(count)
				return n
			}
		}
	}
	return 0
}

// goroutineDebug1 returns this process's goroutine profile at debug=1.
func goroutineDebug1(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// reportPage is the part of the report's embedded document the command
// tests read.
type reportPage struct {
	Title   string `json:"title"`
	Strings []string
	Frames  [][]int
	Inputs  []struct {
		Name      string `json:"name"`
		Total     int64  `json:"total"`
		Truncated bool   `json:"truncated"`
		At        string `json:"at"`
		AtFrom    string `json:"atFrom"`
		Groups    []struct {
			Count int64 `json:"count"`
			Stack []int `json:"stack"`
		} `json:"groups"`
	} `json:"inputs"`
	Timeline *struct {
		Totals []int64 `json:"totals"`
		Series []struct {
			Label  string  `json:"label"`
			Counts []int64 `json:"counts"`
		} `json:"series"`
	} `json:"timeline"`
}

func decodeReport(t *testing.T, page []byte) reportPage {
	t.Helper()
	_, rest, ok := bytes.Cut(page, []byte(`<script type="application/json" id="report-data">`))
	blob, _, ok2 := bytes.Cut(rest, []byte("</script>"))
	if !ok || !ok2 {
		t.Fatalf("no report data in the page (%d bytes)", len(page))
	}
	var p reportPage
	if err := json.Unmarshal(blob, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReportCommandTimeline(t *testing.T) {
	dir := t.TempDir()
	ch := make(chan struct{})
	defer close(ch)
	var files []string
	total := 0
	for i, n := range []int{3, 20, 50} { // 3, 23, 73 parked goroutines
		total += n
		parkGoroutines(t, ch, n, total)
		f := filepath.Join(dir, []string{"a.txt", "b.txt", "c.txt"}[i])
		if err := os.WriteFile(f, goroutineDebug1(t), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := filepath.Join(dir, "report.html")
	if _, stderr, err := runCLIInput(t, nil, append([]string{"report", "-o", out, "--title", "leak <check>"}, files...)...); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("<title>leak &lt;check&gt;</title>")) {
		t.Error("title not set (or not escaped)")
	}
	p := decodeReport(t, page)
	if len(p.Inputs) != 3 || p.Inputs[0].Name != files[0] || p.Inputs[2].Name != files[2] {
		t.Fatalf("dumps %+v, want the three files in order", p.Inputs)
	}
	if p.Timeline == nil {
		t.Fatal("no timeline for three files")
	}
	var counts []int64
	for _, s := range p.Timeline.Series {
		if strings.HasSuffix(s.Label, ".reportParked") {
			counts = s.Counts
		}
	}
	if !slices.Equal(counts, []int64{3, 23, 73}) {
		t.Errorf("timeline of the parked goroutines: %v, want [3 23 73] (series %+v)", counts, p.Timeline.Series)
	}
	for i, in := range p.Inputs {
		if p.Timeline.Totals[i] != in.Total {
			t.Errorf("dump %d: timeline total %d, dump total %d", i, p.Timeline.Totals[i], in.Total)
		}
		// debug=1 records no capture time: the axis has the file's.
		fi, err := os.Stat(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if want := fi.ModTime().UTC().Format("2006-01-02T15:04:05.000Z07:00"); in.At != want || in.AtFrom != "modified" {
			t.Errorf("dump %d: at %q from %q; want the file's modification time %s", i, in.At, in.AtFrom, want)
		}
	}
}

func TestReportCommandStdin(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	parkGoroutines(t, ch, 4, 4)
	stdout, stderr, err := runCLIInput(t, goroutineDebug1(t), "report", "-", "-o", "-")
	if err != nil {
		t.Fatalf("report -: %v\n%s", err, stderr)
	}
	if !strings.HasPrefix(stdout, "<!doctype html>") {
		t.Fatalf("standard output is not the page: %.80q", stdout)
	}
	p := decodeReport(t, []byte(stdout))
	if len(p.Inputs) != 1 || p.Inputs[0].Name != "standard input" || p.Timeline != nil {
		t.Errorf("got %d dumps named %q", len(p.Inputs), p.Inputs[0].Name)
	}
	found := false
	for _, g := range p.Inputs[0].Groups {
		for _, f := range g.Stack {
			if strings.HasSuffix(p.Strings[p.Frames[f][0]], ".reportParked") && g.Count == 4 {
				found = true
			}
		}
	}
	if !found {
		t.Error("no group of the 4 parked goroutines")
	}
}

func TestReportCommandArguments(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.txt")
	if err := os.WriteFile(junk, []byte("nothing to see\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.html")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "requires at least 1 arg"},
		{[]string{"report", "-", "-"}, "only once"},
		{[]string{"report", "--by", "nope", junk}, "unknown similarity"},
		{[]string{"report", "--max-groups", "0", junk}, "must be positive"},
		{[]string{"report", filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{"report", "-o", out, junk}, "junk.txt"},
	} {
		_, _, err := runCLIInput(t, nil, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s behind: %v", out, err)
	}
}

// TestReportCommandFindings: stackdump report of three captures of a real
// leak (testdata/gen/judged leak, "next" between them) carries analyze's
// findings for each dump, with growth across the earlier ones as
// evidence, and the findings of the dumps as a series (the timeline's).
func TestReportCommandFindings(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartArgs(ctx, t, "judged", "leak")
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		if i > 0 {
			p.Send(t, "next")
		}
		f := filepath.Join(dir, fmt.Sprintf("t%d.json", i+1))
		if _, stderr, err := runCLI(t, "capture", "-q", "--max-pause", "0", p.URL, "-o", f); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		files = append(files, f)
	}
	out := filepath.Join(dir, "report.html")
	if _, stderr, err := runCLI(t, append([]string{"report", "-q", "-o", out}, files...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, blob, _ := strings.Cut(string(page), `<script type="application/json" id="report-data">`)
	blob, _, _ = strings.Cut(blob, "</script>")
	var doc struct {
		Inputs []struct {
			Findings []analyze.Finding `json:"findings"`
			Analyzed bool              `json:"analyzed"`
		} `json:"inputs"`
		SeriesFindings []analyze.Finding `json:"seriesFindings"`
		SeriesAnalyzed bool              `json:"seriesAnalyzed"`
	}
	if err := json.Unmarshal([]byte(blob), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Inputs) != 3 || !doc.Inputs[2].Analyzed || !doc.SeriesAnalyzed {
		t.Fatalf("%d inputs, the last analysed %v, the series analysed %v", len(doc.Inputs), len(doc.Inputs) == 3 && doc.Inputs[2].Analyzed, doc.SeriesAnalyzed)
	}
	grew := func(fs []analyze.Finding) bool {
		return slices.ContainsFunc(fs, func(f analyze.Finding) bool {
			return slices.ContainsFunc(f.Evidence, func(e analyze.Evidence) bool { return e.Kind == analyze.EvidenceGrowth })
		})
	}
	if !grew(doc.Inputs[2].Findings) || !grew(doc.SeriesFindings) {
		t.Errorf("no growth as evidence: the last dump's findings %v; the series' %v", doc.Inputs[2].Findings, doc.SeriesFindings)
	}
}
