package report

import (
	"slices"
	"strings"
	"testing"
)

// A report of a crash carries the crash: kind, message, the goroutine
// that crashed and the group holding it; other dumps carry none.
func TestPageDataCrash(t *testing.T) {
	doc := pageData(t, writeReport(t, readCorpus(t, "go/repanic_go126.txt"), Options{}))
	c := doc.Inputs[0].Crash
	if c == nil {
		t.Fatal("no crash in the page data")
	}
	if c.Kind != "panic" || c.Message != "first value [recovered]\npanic: second value [recovered, repanicked]" || c.Goroutine != 1 {
		t.Errorf("crash %+v", c)
	}
	if c.Group < 0 || !slices.Contains(doc.Inputs[0].Groups[c.Group].IDs, 1) {
		t.Errorf("crash group %d does not hold goroutine 1", c.Group)
	}
	doc = pageData(t, writeReport(t, readCorpus(t, "go/debug2_go126.txt"), Options{}))
	if doc.Inputs[0].Crash != nil {
		t.Errorf("crash %+v in a runtime.Stack dump", doc.Inputs[0].Crash)
	}
}

// Inputs built in memory (no Read) find the goroutine in their routines.
func TestPageDataCrashInMemory(t *testing.T) {
	in := readCorpus(t, "go/timeout_go126.txt")[0]
	doc := pageData(t, writeReport(t, []Input{{Name: "t", Dump: in.Dump, Groups: in.Groups}}, Options{}))
	c := doc.Inputs[0].Crash
	if c == nil || c.Kind != "timeout" || c.Goroutine != 0 || c.Group != -1 {
		t.Errorf("without a culprit: crash %+v", c)
	}
	doc = pageData(t, writeReport(t, readCorpus(t, "go/timeout_go126.txt"), Options{}))
	if c := doc.Inputs[0].Crash; c == nil || c.Goroutine != 5 {
		t.Errorf("timeout: crash %+v, want goroutine 5 (running TestHang)", c)
	}
}

// In the browser the summary opens with the crash.
func TestBrowserCrashFirst(t *testing.T) {
	b := findBrowser(t)
	dom := b.load(t, writeReport(t, readCorpus(t, "go/nested_go126.txt"), Options{}), "", "")
	at := strings.Index(dom, `data-crash-kind="panic"`)
	cards := strings.Index(dom, `class="cards"`)
	if at < 0 || cards < 0 || at > cards {
		t.Fatalf("crash banner at %d, summary cards at %d", at, cards)
	}
	if !strings.Contains(dom, "outer failure\npanic: while cleaning up:\nstill broken") {
		t.Error("the page does not show the nested panic's message")
	}
	if !strings.Contains(dom, "in goroutine 1") {
		t.Error("the page does not name the goroutine that panicked")
	}
}
