package dumper

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"

	"github.com/stackdump/stackdump/stack"
)

// Leak mode.
//
// Go 1.27's goroutineleak profile (Go 1.26 only with
// GOEXPERIMENT=goroutineleakprofile) runs a special GC cycle that marks
// goroutines blocked on concurrency primitives that no runnable goroutine
// can reach — goroutines nothing can ever wake — as leaked; a traceback
// then prints them as `[chan send (leaked)]`. The mark stays until the
// next leak-detection cycle. So leak mode writes the profile (debug=1,
// discarded: it is the GC cycle that matters) and then takes a full
// capture: every goroutine, leaked ones marked, with labels and without
// the 64 MiB cut of the profile's own debug=2.
//
// The profile is looked up at run time (pprof.Lookup), so the module
// builds on Go 1.26, where the lookup usually finds nothing.

// LeakProfile is the name of the runtime's goroutine leak profile.
const LeakProfile = "goroutineleak"

// detectLeaks runs the leak-detection GC cycle by writing the leak profile,
// and returns how many goroutines it found leaked.
func detectLeaks() (int, error) {
	p := pprof.Lookup(LeakProfile)
	if p == nil {
		return 0, fmt.Errorf("%w; this process runs %s", ErrNoLeakProfile, runtime.Version())
	}
	if err := p.WriteTo(io.Discard, 1); err != nil {
		return 0, fmt.Errorf("goroutineleak profile: %w", err)
	}
	return p.Count(), nil
}

// leakWarning compares the leaked goroutines a capture marks with the
// count the profile gave, or is nil when they agree.
func leakWarning(d *stack.Dump, proven int) *stack.ParseError {
	marked := 0
	for _, r := range d.Routines {
		if r.Leaked {
			marked++
		}
	}
	if marked >= proven || d.Truncated {
		return nil
	}
	return &stack.ParseError{Msg: fmt.Sprintf(
		"the goroutineleak profile found %d leaked goroutines and the capture marks %d: a leak-detection cycle run by another caller in between may have reset some", proven, marked)}
}
