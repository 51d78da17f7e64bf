package dumper

import (
	"fmt"
	"runtime"
	"runtime/pprof"
	"testing"
)

// BenchmarkLeakMode measures what leak mode adds to a full capture: the
// leak-detection GC cycle the goroutineleak profile runs, beside a plain
// runtime.GC, a full capture, and the whole leak-mode capture (the cycle,
// then runtime.Stack), at 10k and 100k parked goroutines (blocked on
// reachable primitives: none leaked, so the cycle scans every stack, and
// the test binary leaks nothing). Metrics are BenchmarkCaptureModes'.
// It needs Go 1.27 (the profile):
//
//	GOTOOLCHAIN=go1.27.3 go test ./dumper -run '^$' -bench LeakMode -benchtime 3x
func BenchmarkLeakMode(b *testing.B) {
	if pprof.Lookup(LeakProfile) == nil {
		b.Skipf("%s has no goroutineleak profile (Go 1.27): run with GOTOOLCHAIN=go1.27.3", runtime.Version())
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			lot := newParkingLot(b, n, releasableKinds, 2000)
			defer lot.release()
			probe := startStallProbe()
			defer probe.stop()
			b.Run("step=runtime.GC", func(b *testing.B) { benchCapture(b, probe, gcStep(runtime.GC)) })
			b.Run("step=leak-gc", func(b *testing.B) {
				benchCapture(b, probe, gcStep(func() {
					if _, err := detectLeaks(); err != nil {
						b.Fatal(err)
					}
				}))
			})
			b.Run("mode=full", func(b *testing.B) { benchCapture(b, probe, fullMode()) })
			b.Run("mode=leak", func(b *testing.B) { benchCapture(b, probe, leakMode(b)) })
		})
	}
}

// gcStep measures one call of gc as a capture without output.
func gcStep(gc func()) captureMode {
	return captureMode{
		prepare: func() {},
		capture: func(*testing.B) (int, func() error) {
			gc()
			return 0, func() error { return nil }
		},
	}
}

// leakMode is leak mode's capture: the leak-detection cycle, then what
// fullMode measures.
func leakMode(b *testing.B) captureMode {
	full := fullMode()
	return captureMode{
		prepare: full.prepare,
		capture: func(b *testing.B) (int, func() error) {
			if _, err := detectLeaks(); err != nil {
				b.Fatal(err)
			}
			return full.capture(b)
		},
	}
}
