package report

import (
	"strings"
	"testing"
)

// The summary's first card counts the dump's goroutines or threads in a
// word that agrees with the count: "1 goroutine", never "1 goroutines"
// (issue 38 item 6). testdata/corpus/go/gostackparse_frameselided.txt is a
// real dump of one goroutine; its JVM counterpart names threads.
func TestBrowserOneRoutineNoun(t *testing.T) {
	b := findBrowser(t)
	for _, tt := range []struct{ file, want, notWant string }{
		{"corpus/go/gostackparse_frameselided.txt", `<div class="big">1</div><div class="small">goroutine</div>`, `<div class="small">goroutines</div>`},
		{"corpus/go/gostackparse_ancestors.txt", `<div class="small">goroutines</div>`, `<div class="small">goroutine</div>`},
	} {
		inputs := readCorpus(t, tt.file)
		dom := b.load(t, writeReport(t, inputs, Options{}), "", "")
		cards := dom[max(0, strings.Index(dom, `class="cards"`)):]
		if !strings.Contains(cards, tt.want) || strings.Contains(cards, tt.notWant) {
			i := strings.Index(cards, `class="big"`)
			t.Errorf("%s: first card %q, want %s", tt.file, cards[max(0, i):min(len(cards), i+120)], tt.want)
		}
	}
}
