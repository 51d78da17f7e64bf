package dumper

import (
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"
	"time"
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

// BenchmarkLeakGCSharedWaiters measures the leak-detection GC cycle alone
// with n goroutines waiting on just two primitives, half receiving from
// one channel and half locking one sync.Mutex (both reachable: nothing
// leaks), beside runtime.GC. Unlike the parking lot's spread-out waiters,
// long wait queues make the cycle grow faster than n (docs/modes.md).
//
//	GOTOOLCHAIN=go1.27.3 go test ./dumper -run '^$' -bench LeakGCSharedWaiters -benchtime 1x
func BenchmarkLeakGCSharedWaiters(b *testing.B) {
	if pprof.Lookup(LeakProfile) == nil {
		b.Skipf("%s has no goroutineleak profile (Go 1.27): run with GOTOOLCHAIN=go1.27.3", runtime.Version())
	}
	for _, n := range []int{5_000, 10_000, 20_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ch := make(chan int)
			var mu sync.Mutex
			var started, done sync.WaitGroup
			mu.Lock()
			for i := range n {
				started.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					started.Done()
					if i%2 == 0 {
						<-ch
						return
					}
					mu.Lock()
					mu.Unlock()
				}()
			}
			started.Wait()
			time.Sleep(50 * time.Millisecond) // from started to parked
			defer func() { close(ch); mu.Unlock(); done.Wait() }()
			b.Run("step=runtime.GC", func(b *testing.B) {
				for range b.N {
					runtime.GC()
				}
			})
			b.Run("step=leak-gc", func(b *testing.B) {
				for range b.N {
					if _, err := detectLeaks(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
