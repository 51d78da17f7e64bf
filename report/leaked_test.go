package report

import (
	"strings"
	"testing"
)

// leakproofFixture is Go 1.27.3's leak profile of testdata/gen/leakproof:
// 200 handlers and 60 fan-out workers proven leaked, 120 subscribers
// leaked where the GC cannot see it.
const leakproofFixture = "go/leakproof_go127.txt"

// Proof ranks above size: the proven groups come first, with their
// counts, and the rest keep their largest-first order.
func TestReportProvenLeaksFirst(t *testing.T) {
	doc := pageData(t, writeReport(t, readCorpus(t, leakproofFixture), Options{}))
	gs := doc.Inputs[0].Groups
	if len(gs) < 3 {
		t.Fatalf("%d groups", len(gs))
	}
	top := func(g groupDoc) string { return doc.Strings[doc.Frames[g.Stack[0]][0]] }
	if gs[0].Leaked != 200 || gs[0].Count != 200 || gs[1].Leaked != 60 || top(gs[1]) != "main.fanOutWorker" {
		t.Errorf("first groups: %d (%d leaked), %s %d (%d leaked); want the 200 and 60 proven", gs[0].Count, gs[0].Leaked, top(gs[1]), gs[1].Count, gs[1].Leaked)
	}
	if gs[2].Leaked != 0 || gs[2].Count != 120 {
		t.Errorf("third group %d (%d leaked), want the 120 unproven subscribers", gs[2].Count, gs[2].Leaked)
	}
	for i := 3; i < len(gs); i++ {
		if gs[i].Leaked != 0 || gs[i].Count > gs[i-1].Count && i > 3 {
			t.Errorf("group %d: %d (%d leaked) out of order", i, gs[i].Count, gs[i].Leaked)
		}
	}
}

func TestBrowserProvenLeaked(t *testing.T) {
	t.Parallel()
	b := findBrowser(t)
	page := writeReport(t, readCorpus(t, leakproofFixture), Options{})
	dom := b.load(t, page, "", "")
	first, _, _ := strings.Cut(dom, `id="g1"`)
	if !strings.Contains(first, `class="chip leaked"`) || !strings.Contains(first, "proven leaked 200") {
		t.Errorf("the first group carries no proven-leaked chip:\n%s", first[max(0, len(first)-3000):])
	}
	if n := strings.Count(dom, `class="chip leaked"`); n != 2 {
		t.Errorf("%d proven-leaked chips, want 2", n)
	}
}
