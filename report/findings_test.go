package report

import (
	"bytes"
	"context"
	"html"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
)

// These tests hold that the page shows the findings stackdump analyze
// makes — the same verdicts, claims and evidence, from the one model of
// package analyze — on real sick processes (testdata/gen/judged and
// testdata/gen/jvm/JudgedLocks, the judged set's programs), in Chromium.

// analyzeText is what stackdump analyze makes of a dump's text: its
// summaries, one per dump, with history across them.
func analyzeText(t *testing.T, texts ...[]byte) []*analyze.Summary {
	t.Helper()
	opts := analyze.StreamOptions{Options: analyze.Options{History: analyze.NewLeakHistory()}}
	var out []*analyze.Summary
	for _, text := range texts {
		s, _, err := analyze.SummarizeNext(formats.NewReader(bytes.NewReader(text), formats.ReadOptions{}), opts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// pageFinding is a finding as the page shows it.
type pageFinding struct {
	kind, confidence, claim string
	evidence                []string
}

var (
	clearRE    = regexp.MustCompile(`<p class="clear">([^<]*)</p>`)
	findingRE  = regexp.MustCompile(`(?s)<div class="finding (?:bad|warn)" data-finding-kind="([^"]+)" data-confidence="([^"]+)"><p class="claim">.*?<span class="text">([^<]*)</span></p>(.*?)<ul class="evidence">(.*?)</ul>`)
	evidenceRE = regexp.MustCompile(`<li data-evidence-kind="[^"]*">([^<]*)`)
)

// pageFindings returns the findings of the page's box what ("dump" or
// "series") and its ✓ line.
func pageFindings(t *testing.T, dom, what string) ([]pageFinding, string) {
	t.Helper()
	head := `<div class="findings" data-findings="` + what + `" data-count="`
	start := strings.Index(dom, head)
	if start < 0 {
		t.Fatalf("no %s findings box in the page", what)
	}
	box := dom[start+len(head):]
	n, box, _ := strings.Cut(box, `">`)
	for _, next := range []string{`<div class="findings"`, `<div class="cards">`} {
		if k := strings.Index(box, next); k >= 0 {
			box = box[:k]
		}
	}
	var out []pageFinding
	for _, m := range findingRE.FindAllStringSubmatch(box, -1) {
		f := pageFinding{kind: m[1], confidence: m[2], claim: html.UnescapeString(m[3])}
		for _, e := range evidenceRE.FindAllStringSubmatch(m[5], -1) {
			f.evidence = append(f.evidence, html.UnescapeString(e[1]))
		}
		out = append(out, f)
	}
	if len(out) != atoi(n) {
		t.Fatalf("the %s box says %s findings and shows %d", what, n, len(out))
	}
	clear := ""
	if m := clearRE.FindStringSubmatch(box); m != nil {
		clear = html.UnescapeString(m[1])
	}
	return out, clear
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// checkSameFindings fails unless the page shows want, in order, with
// every piece of evidence.
func checkSameFindings(t *testing.T, what string, got []pageFinding, want []analyze.Finding) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: the page shows %d findings, analyze makes %d:\npage %+v\nanalyze %v", what, len(got), len(want), got, want)
		return
	}
	for i, f := range want {
		var ev []string
		for _, e := range f.Evidence {
			ev = append(ev, e.Text)
		}
		g := got[i]
		if g.kind != string(f.Kind) || g.confidence != string(f.Confidence) || g.claim != f.Claim || !slices.Equal(g.evidence, ev) {
			t.Errorf("%s: finding %d on the page %+v, analyze's %+v", what, i+1, g, f)
		}
	}
}

// reportOf writes the page of texts read as the CLI reads them: one
// history and one timeline across the dumps.
func reportOf(t *testing.T, texts ...[]byte) string {
	t.Helper()
	ropts := ReadOptions{Analysis: analyze.Options{History: analyze.NewLeakHistory()}}
	if len(texts) > 1 {
		ropts.Timeline = analyze.NewTimeline(analyze.TimelineOptions{By: dedupe.ByStack})
	}
	var inputs []Input
	for _, text := range texts {
		in, err := Read(bytes.NewReader(text), "live", ropts)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, in...)
	}
	opts := Options{}
	if ropts.Timeline != nil {
		opts.Timeline = ropts.Timeline.Report()
	}
	return writeReport(t, inputs, opts)
}

// TestReportFindingsGo: the Go report shows analyze's findings — on 40
// goroutines waiting for a mutex whose holder sleeps (contention, the
// lock's probable holder in the Locks section), and on an ABBA deadlock
// the runtime does not see (a deadlock with its cycle) — with the same
// claims and evidence, links to the groups, and the checks that found
// nothing.
func TestReportFindingsGo(t *testing.T) {
	b := findBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, mode := range []string{"mutex40", "abba"} {
		t.Run(mode, func(t *testing.T) {
			p := livechild.StartArgs(ctx, t, "judged", mode)
			text := livechild.Fetch(ctx, t, p.URL+"/debug/pprof/goroutine?debug=2")
			want := analyzeText(t, text)[0]
			if len(want.Findings) == 0 {
				t.Fatalf("analyze finds nothing in %s", mode)
			}
			dom := b.load(t, reportOf(t, text), "", artifact(t, "findings-"+mode+".png"))
			got, clear := pageFindings(t, dom, "dump")
			checkSameFindings(t, mode, got, want.Findings)
			if wantClear := strings.Join(want.Clear(), ", "); clear != "" && clear != "✓ "+wantClear || clear == "" && wantClear != "" {
				t.Errorf("the page's ✓ line %q, analyze's %q", clear, wantClear)
			}
			if !strings.Contains(dom, `<p class="subject dim">`) && mode == "mutex40" || !regexp.MustCompile(`<div class="finding[^>]*>.*?<a class="glink"`).MatchString(dom) {
				t.Errorf("%s: the findings do not link to their groups", mode)
			}
			switch mode {
			case "mutex40":
				if !slices.ContainsFunc(got, func(f pageFinding) bool { return f.kind == "contention" }) {
					t.Errorf("no contention finding: %+v", got)
				}
				if len(want.GoLocks) == 0 || !strings.Contains(dom, `<table class="locks golocks">`) || !strings.Contains(dom, "main.(*store).compact") {
					t.Errorf("the Go lock table with its probable holder main.(*store).compact is missing (analyze: %+v)", want.GoLocks)
				}
			case "abba":
				if !slices.ContainsFunc(got, func(f pageFinding) bool { return f.kind == "deadlock" }) || strings.Count(dom, `<li class="step">`) < 2 {
					t.Errorf("no deadlock with its cycle: %+v", got)
				}
			}
		})
	}
}

// TestReportFindingsJVM: on a real JVM (JudgedLocks: two deadlocks, 30
// threads BLOCKED on a monitor, 10 parked acquiring a ReentrantLock, 20 in
// Object.wait, an idle pool) the report shows analyze's findings, and
// counts as blocked exactly the threads analyze calls blocked (acquiring
// a lock: not the idle pool's parked workers, not those in Object.wait).
func TestReportFindingsJVM(t *testing.T) {
	b := findBrowser(t)
	jcmd, err := exec.LookPath("jcmd")
	if err != nil {
		t.Skip("jcmd is not installed: the live JVM test needs a JDK")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartJava(ctx, t, "JudgedLocks")
	text, err := exec.CommandContext(ctx, jcmd, p.PID, "Thread.print", "-l").Output()
	if err != nil {
		t.Fatalf("jcmd: %v", err)
	}
	want := analyzeText(t, text)[0]
	dom := b.load(t, reportOf(t, text), "", artifact(t, "findings-jvm.png"))
	got, _ := pageFindings(t, dom, "dump")
	checkSameFindings(t, "JudgedLocks", got, want.Findings)
	dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blocked, parked := 0, 0
	for _, lk := range analyze.Locks(dumps[0]).Locks {
		blocked += len(lk.Blocked)
		parked += len(lk.Parked)
	}
	m := regexp.MustCompile(`<small id="locks-note" data-blocked="(\d+)">([^<]*)</small>`).FindStringSubmatch(dom)
	if m == nil || atoi(m[1]) != blocked || blocked < 40 {
		t.Errorf("the Locks section counts %q blocked; analyze counts %d (30 on the monitor, 10 on the ReentrantLock, and the deadlocked)", m, blocked)
	}
	if parked > 0 && !strings.Contains(m[2], "parked for a signal (not blocked)") {
		t.Errorf("the %d threads parked for a signal are not told apart: %q", parked, m[2])
	}
}

// TestReportFindingsSeries: three snapshots of a leak growing beside a
// healthy pool (judged leak, "next" between them): each dump's findings
// are analyze's with the earlier dumps as history (growth is evidence),
// and the page shows the timeline's findings across the dumps.
func TestReportFindingsSeries(t *testing.T) {
	b := findBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartArgs(ctx, t, "judged", "leak")
	var texts [][]byte
	for i := range 3 {
		if i > 0 {
			time.Sleep(300 * time.Millisecond)
			p.Send(t, "next")
		}
		texts = append(texts, livechild.Fetch(ctx, t, p.URL+"/debug/pprof/goroutine?debug=2"))
	}
	want := analyzeText(t, texts...)
	tl := analyze.NewTimeline(analyze.TimelineOptions{By: dedupe.ByStack})
	for _, text := range texts {
		dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tl.Add(dumps[0])
	}
	series := tl.Report().Findings
	page := reportOf(t, texts...)
	dom := b.load(t, page, "#dump=2", artifact(t, "findings-series.png"))
	got, _ := pageFindings(t, dom, "dump")
	checkSameFindings(t, "the third dump", got, want[2].Findings)
	if !slices.ContainsFunc(want[2].Findings, func(f analyze.Finding) bool {
		return slices.ContainsFunc(f.Evidence, func(e analyze.Evidence) bool { return e.Kind == analyze.EvidenceGrowth })
	}) {
		t.Errorf("analyze gives the third dump no finding with growth as evidence: %v", want[2].Findings)
	}
	gotSeries, _ := pageFindings(t, dom, "series")
	checkSameFindings(t, "across the dumps", gotSeries, series)
}
