package dumptest

import (
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// HeapCap is the most heap a hostile input may cost a reader, over
// what the process held before (docs/RELIABILITY.md). The inputs are far
// larger than this, so a reader that buffers them fails the bound.
const HeapCap = 256 << 20

// heapObjects is the runtime/metrics sample of the heap's object bytes:
// live objects plus garbage not yet swept, what RSS follows.
const heapObjects = "/memory/classes/heap/objects:bytes"

// MeasureHeap runs fn while sampling the heap every millisecond and
// returns the highest heap seen above the heap before fn (after a GC).
func MeasureHeap(t testing.TB, fn func()) uint64 {
	t.Helper()
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// CheckHeap runs fn under MeasureHeap and fails the test when it costs
// more than HeapCap; it logs the figure for docs/RELIABILITY.md.
func CheckHeap(t *testing.T, what string, fn func()) {
	t.Helper()
	peak := MeasureHeap(t, fn)
	t.Logf("%s: peak heap %.1f MiB over the baseline", what, float64(peak)/(1<<20))
	if peak > HeapCap {
		t.Errorf("%s: peak heap %d MiB, over the %d MiB cap", what, peak>>20, HeapCap>>20)
	}
}

// RepeatReader yields n bytes of pattern repeated, without holding them.
type RepeatReader struct {
	pattern []byte
	off     int   // next byte of pattern
	left    int64 // bytes still to yield
}

// NewRepeatReader returns a reader of n bytes of pattern repeated.
func NewRepeatReader(pattern []byte, n int64) *RepeatReader {
	return &RepeatReader{pattern: pattern, left: n}
}

// Read yields the next bytes of the repeated pattern.
func (r *RepeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.pattern[r.off:])
		n += c
		r.off = (r.off + c) % len(r.pattern)
	}
	r.left -= int64(n)
	return n, nil
}

// GenReader yields the blocks next returns, one after another, until next
// returns nil: an input of any size built as it is read.
type GenReader struct {
	Next func() []byte
	cur  []byte
}

// Read yields the blocks Next returns, in order.
func (g *GenReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(g.cur) == 0 {
			if g.cur = g.Next(); g.cur == nil {
				if n == 0 {
					return 0, io.EOF
				}
				break
			}
		}
		c := copy(p[n:], g.cur)
		g.cur = g.cur[c:]
		n += c
	}
	return n, nil
}
