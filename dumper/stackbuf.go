package dumper

import (
	"bytes"
	"runtime"
	"sync"
	"time"
)

// Full capture prints every goroutine with runtime.Stack(buf, true), which
// stops the world for the whole print and cuts the text silently when buf
// is full. runtime/pprof starts at 1 MiB and doubles, stopping the world
// once per try (each try walks every goroutine, even past the end of the
// buffer) and giving up at 64 MiB. Here the buffer is sized before the
// pause from runtime.NumGoroutine and the bytes per goroutine measured by
// earlier captures, so one pause normally suffices; a retry is sized from
// what the failed pass printed.

const (
	// initialBytesPerG is the first guess of the traceback bytes per
	// goroutine, before any capture measured it: a goroutine parked a
	// dozen frames deep prints about 1.5 KiB.
	initialBytesPerG = 2048
	// bufSlack is added to every estimate, with 20%, for goroutines
	// started between NumGoroutine and the pause and for deeper stacks.
	bufSlack = 64 << 10
	// retainMax is the largest buffer kept for the next capture for good;
	// a larger one is kept only for largeRetention after its capture, so
	// that repeated captures (watch, a scraper, several requests) reuse it
	// instead of faulting in hundreds of MiB each time, while a spike does
	// not pin that memory for the life of the process.
	retainMax = 64 << 20
	// maxStackTries bounds the passes (and so the pauses) of one capture.
	maxStackTries = 4
	pageSize      = 4096
)

// largeRetention is how long a buffer above retainMax is kept unused.
var largeRetention = 30 * time.Second

// stackSizer remembers the measured traceback bytes per goroutine.
var stackSizer struct {
	sync.Mutex
	perG float64
}

// estimateStackBytes returns the buffer size for n goroutines.
func estimateStackBytes(n int) int {
	stackSizer.Lock()
	per := stackSizer.perG
	stackSizer.Unlock()
	if per == 0 {
		per = initialBytesPerG
	}
	return int(float64(n)*per*1.2) + bufSlack
}

// recordStackBytes updates the estimate from a capture that printed size
// bytes for n goroutines. It follows growth at once and shrinks slowly.
func recordStackBytes(size, n int) {
	if n <= 0 {
		return
	}
	per := float64(size) / float64(n)
	stackSizer.Lock()
	defer stackSizer.Unlock()
	if old := stackSizer.perG; old > per {
		per = 0.7*old + 0.3*per
	}
	stackSizer.perG = per
}

// stackPool holds one retained traceback buffer. A capture that finds it
// taken (another capture is running) allocates its own.
var stackPool struct {
	sync.Mutex
	buf  []byte
	drop *time.Timer // releases a buffer above retainMax left unused
}

// getStackBuf returns a buffer of at least n bytes, its pages touched so
// that the runtime does not fault them in while the world is stopped.
func getStackBuf(n int) []byte {
	stackPool.Lock()
	b := stackPool.buf
	if cap(b) >= n {
		stackPool.buf = nil
		stopDrop()
		stackPool.Unlock()
		return b[:cap(b)]
	}
	stackPool.Unlock()
	// An eighth more than asked, so that the next capture, whose estimate
	// grows with every goroutine started meanwhile, still fits the
	// retained buffer instead of allocating (and faulting in) a new one.
	b = make([]byte, n+n/8)
	for i := 0; i < len(b); i += pageSize {
		b[i] = 0
	}
	return b
}

// putStackBuf offers b for reuse. A buffer above retainMax is released
// after largeRetention unless a capture takes it first.
func putStackBuf(b []byte) {
	stackPool.Lock()
	defer stackPool.Unlock()
	if cap(b) <= cap(stackPool.buf) {
		return
	}
	stackPool.buf = b
	stopDrop()
	if cap(b) > retainMax {
		stackPool.drop = time.AfterFunc(largeRetention, func() {
			stackPool.Lock()
			if cap(stackPool.buf) > retainMax {
				stackPool.buf = nil
			}
			stackPool.Unlock()
		})
	}
}

// stopDrop cancels a pending release; stackPool is locked.
func stopDrop() {
	if stackPool.drop != nil {
		stackPool.drop.Stop()
		stackPool.drop = nil
	}
}

// stackText is the result of printAllStacks.
type stackText struct {
	buf       []byte // pooled buffer; text is buf[:n]
	n         int
	tries     int  // runtime.Stack passes (pauses)
	truncated bool // maxBytes was reached
	// trace, when set, holds a trace-mode capture's routines instead, made
	// while they are written (buf is nil).
	trace *traceSnapshot
}

// printAllStacks prints every goroutine into a presized buffer, retrying with
// a larger one when the text did not fit, up to maxBytes.
func printAllStacks(maxBytes int) stackText {
	size := min(estimateStackBytes(runtime.NumGoroutine()), maxBytes)
	var st stackText
	for {
		buf := getStackBuf(size)
		// Allocating hundreds of MiB takes a while; check that the
		// goroutines did not outgrow the buffer meanwhile.
		if grown := estimateStackBytes(runtime.NumGoroutine()); grown > len(buf) && len(buf) < maxBytes {
			putStackBuf(buf)
			buf = getStackBuf(min(grown, maxBytes))
		}
		if len(buf) > maxBytes {
			buf = buf[:maxBytes]
		}
		n := runtime.Stack(buf, true)
		st.tries++
		st.buf, st.n = buf, n
		if n < len(buf) {
			return st
		}
		if len(buf) >= maxBytes || st.tries >= maxStackTries {
			st.truncated = true
			return st
		}
		// Size the retry from what this pass printed per goroutine.
		seen := bytes.Count(buf, []byte("\ngoroutine ")) + 1
		per := float64(n) / float64(seen)
		recordStackBytes(n, seen)
		next := int(float64(runtime.NumGoroutine())*per*1.3) + bufSlack
		size = min(max(next, 2*len(buf)), maxBytes)
		putStackBuf(buf)
	}
}
