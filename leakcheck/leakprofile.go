package leakcheck

import (
	"io"
	"runtime/pprof"
	"time"
)

// leakProfileName is the runtime's GC-proven leak profile: Go 1.27 (and
// Go 1.26 built with GOEXPERIMENT=goroutineleakprofile). It is looked up
// at run time so that the module builds and runs on Go 1.26, where the
// lookup returns nil.
const leakProfileName = "goroutineleak"

// leakProfile returns the goroutine leak profile, or nil when the running
// Go has none.
func leakProfile() *pprof.Profile { return pprof.Lookup(leakProfileName) }

// detectLeaks runs the garbage collection cycle that proves leaks: it marks
// goroutines blocked on a channel, select, mutex, wait group or condition
// that no runnable goroutine can reach as leaked, and later tracebacks say
// "(leaked)" in their state. It writes the profile of only the leaked
// goroutines (debug=1) and throws it away: the marks are what is wanted,
// and the next runtime.Stack pass shows them. It returns the time taken.
func detectLeaks(p *pprof.Profile) time.Duration {
	start := time.Now()
	_ = p.WriteTo(io.Discard, 1) // io.Discard does not fail
	return time.Since(start)
}
