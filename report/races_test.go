package report

import (
	"strings"
	"testing"
)

// A report of race detector output (go run -race: two races, no
// goroutine dump) carries the races, as analyze shows them: each access
// with its goroutine and top frame. Without them the page said only "No
// goroutines in this dump".
func TestPageDataRaces(t *testing.T) {
	doc := pageData(t, writeReport(t, readCorpus(t, "go/race_go126.txt"), Options{}))
	in := doc.Inputs[0]
	if in.RacesTotal != 2 || len(in.Races) != 2 {
		t.Fatalf("%d races in %d reports; want 2 in 2", len(in.Races), in.RacesTotal)
	}
	a := in.Races[0].Accesses
	if len(a) != 2 || a[0].Op != "write" || a[0].Goroutine != 9 || a[0].Frames[0].Func != "main.raceWrite" ||
		a[1].Op != "previous read" || !a[1].Main || a[1].Frames[0].Func != "main.raceRead" {
		t.Errorf("first race %+v", a)
	}
	doc = pageData(t, writeReport(t, readCorpus(t, "go/debug2_go126.txt"), Options{}))
	if doc.Inputs[0].Races != nil || doc.Inputs[0].RacesTotal != 0 {
		t.Errorf("races %+v in a runtime.Stack dump", doc.Inputs[0].Races)
	}
}

// In the browser the races are shown above the summary cards, each
// access with who made it and where.
func TestBrowserRaces(t *testing.T) {
	b := findBrowser(t)
	dom := b.load(t, writeReport(t, readCorpus(t, "go/racepanic_go127.txt"), Options{}), "", "")
	at := strings.Index(dom, `class="banner bad races"`)
	cards := strings.Index(dom, `class="cards"`)
	if at < 0 || cards < 0 || at > cards {
		t.Fatalf("races banner at %d, summary cards at %d", at, cards)
	}
	box := dom[at:cards]
	for _, want := range []string{"1 data race", "3 reports", "write by goroutine", "previous read by main goroutine", "main.raceWrite", "created at"} {
		if !strings.Contains(box, want) {
			t.Errorf("the races banner does not say %q:\n%s", want, box)
		}
	}
}
