package dumper

import (
	"bytes"
	"runtime"
	"testing"
)

// TestCutTraceback cuts a real traceback at every size the two users ask
// for: each chunk holds at least size bytes unless it is the last, the
// next starts with the blank line before a goroutine header, and the
// chunks put together are the text.
func TestCutTraceback(t *testing.T) {
	startFixture(t, fixturePerKind)
	buf := make([]byte, 64<<20)
	text := buf[:runtime.Stack(buf, true)]
	for _, size := range []int{0, 1, 100, 4096, len(text) / 3, len(text) - 1, len(text), len(text) + 1} {
		var joined []byte
		rest := text
		for chunks := 0; len(rest) > 0; chunks++ {
			cut := cutTraceback(rest, size)
			if cut <= 0 || cut > len(rest) {
				t.Fatalf("size %d: cut %d of %d bytes", size, cut, len(rest))
			}
			if cut < len(rest) {
				if cut < size {
					t.Errorf("size %d: chunk %d has %d bytes", size, chunks, cut)
				}
				if !bytes.HasPrefix(rest[cut:], []byte("\ngoroutine ")) {
					t.Errorf("size %d: chunk %d is followed by %q", size, chunks+1, rest[cut:min(cut+20, len(rest))])
				}
			}
			joined = append(joined, rest[:cut]...)
			rest = rest[cut:]
		}
		if !bytes.Equal(joined, text) {
			t.Errorf("size %d: the chunks are not the text", size)
		}
	}
	if cutTraceback(nil, 10) != 0 {
		t.Error("an empty text has a chunk")
	}
}
