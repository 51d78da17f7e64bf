package unpaste

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestWrapWidth checks wrapWidth's eight-byte steps against counting
// byte by byte: tabs to the next multiple of 8, a column per rune.
func TestWrapWidth(t *testing.T) {
	ref := func(l []byte) int {
		n := 0
		for len(l) > 0 {
			if l[0] == '\t' {
				n += 8 - n%8
				l = l[1:]
				continue
			}
			_, size := utf8.DecodeRune(l)
			l = l[size:]
			n++
		}
		return n
	}
	pieces := []string{"a", "Z", "0", " ", "(", "\t", "é", "→", "\x80", "\xff", "main.go:12 +0x1d", "\t/usr/local/go/src/runtime/proc.go:462"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var l []byte
		for range rng.IntN(12) {
			l = append(l, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := wrapWidth(l, true), ref(l); got != want {
			t.Fatalf("wrapWidth(%q, true) = %d, want %d", l, got, want)
		}
		if got := wrapWidth(l, false); got != len(l) {
			t.Fatalf("wrapWidth(%q, false) = %d, want %d", l, got, len(l))
		}
	}
}
