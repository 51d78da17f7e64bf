package gotext

import (
	"bytes"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
)

// A reusing reader over a stream keeps the arguments of the routine it
// reads as views of the line reader's window, and copies them out before
// the window moves (detachFromWindow); a junk word between frames is a pending call
// taken back (section.rollback). Each case puts a junk word before
// another function line near the end of the first window (the stream
// buffer is 256 KiB) of a generated dump, so that the window moves inside
// routines read around junk, and compares what the reusing reader yields
// with ReadAll.
func TestReuseJunkAtWindowEdge(t *testing.T) {
	data := dumptest.TracebackBytes(3000)
	const window = 256 << 10
	if len(data) < 2*window {
		t.Fatalf("generated dump of %d bytes: too small to cross the window", len(data))
	}
	// With -short only the function lines closest to the edge: the run
	// with the default toolchain takes every one within 2000 bytes.
	from, minCases := window-2000, 10
	if testing.Short() {
		from, minCases = window-300, 2
	}
	cases := 0
	for at := from; at < window+200; at++ {
		if data[at-1] != '\n' || data[at] == '\t' || data[at] == '\n' || bytes.HasPrefix(data[at:], []byte("goroutine ")) {
			continue // not a function line
		}
		in := bytes.Join([][]byte{data[:at], data[at:]}, []byte("junk\n"))
		checkReuseMatchesReadAll(t, in, ReadOptions{})
		cases++
	}
	if cases < minCases {
		t.Fatalf("only %d function lines near the window's edge", cases)
	}
	t.Logf("%d function lines near the window's edge", cases)
}
