package dumper

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"
)

// The leak-mode guard.
//
// The leak-detection GC cycle stalls the process for a time that grows
// much faster than its goroutines (docs/modes.md, "Leak mode"): tens to a
// few hundred ms at 10k, about a third of a second at 20k, two seconds at
// 40k, about a minute at 100k. A leak-mode capture therefore counts the
// goroutines first (runtime.NumGoroutine in a process; debug=1's total
// for a net/http/pprof target, in package remote) and refuses, before the
// cycle runs, when there are more than a bound.

// DefaultLeakMaxGoroutines is the goroutine count above which a leak-mode
// capture refuses when its options give no bound. Up to it, the leak cycle
// stalls the process for about what a full capture of it stops the world
// for (≈0.35 s against ≈0.2–0.3 s at 20k on the project's loaded VM); past
// it, the stall outgrows the full capture's pause: ×3 at 40k, ×30 at 100k
// (docs/modes.md).
const DefaultLeakMaxGoroutines = 20_000

// ErrLeakBound is wrapped by the error of a leak-mode capture refused
// because the process has more goroutines than the bound allows
// (a *LeakBoundError says how many, the bound, and how to raise it).
var ErrLeakBound = errors.New("too many goroutines for leak mode")

// LeakBoundError is the error of a leak-mode capture refused before its
// GC cycle ran: the process had more goroutines than Bound.
type LeakBoundError struct {
	// Goroutines is the count that was found; Bound the largest allowed.
	Goroutines int64
	Bound      int64
	// Override says how the caller may raise the bound; empty means the
	// options field (CaptureOptions.LeakMaxGoroutines). A command-line
	// tool puts its flag's words here.
	Override string
}

// leakOverrideHint is LeakBoundError's default Override.
const leakOverrideHint = "to take it anyway, raise the bound: LeakMaxGoroutines (negative: no bound)"

// Error says how many goroutines the process has, the bound, the stall
// the GC cycle would cost, and how to raise the bound (Override).
func (e *LeakBoundError) Error() string {
	how := e.Override
	if how == "" {
		how = leakOverrideHint
	}
	return fmt.Sprintf("leak mode refused: the target has %d goroutines, more than the bound of %d; the leak-detection GC cycle would stall it for %s (docs/modes.md); %s",
		e.Goroutines, e.Bound, LeakStallEstimate(e.Goroutines), how)
}

// Unwrap returns ErrLeakBound.
func (e *LeakBoundError) Unwrap() error { return ErrLeakBound }

// LeakBound resolves a LeakMaxGoroutines option: zero means
// DefaultLeakMaxGoroutines, negative means no bound (returned as 0).
func LeakBound(option int) int64 {
	switch {
	case option == 0:
		return DefaultLeakMaxGoroutines
	case option < 0:
		return 0
	}
	return int64(option)
}

// CheckLeakBound returns a *LeakBoundError when goroutines is above the
// bound that the LeakMaxGoroutines option gives (LeakBound), with override
// as its Override; nil otherwise.
func CheckLeakBound(goroutines int64, option int, override string) error {
	if bound := LeakBound(option); bound > 0 && goroutines > bound {
		return &LeakBoundError{Goroutines: goroutines, Bound: bound, Override: override}
	}
	return nil
}

// checkLeakBoundHere checks the calling process's goroutines.
func checkLeakBoundHere(option int, override string) error {
	return CheckLeakBound(int64(runtime.NumGoroutine()), option, override)
}

// leakStalls are the longest stalls a 100 µs ticker saw during the leak
// cycle (BenchmarkLeakMode, the upper ends of docs/modes.md's ranges).
var leakStalls = []struct {
	goroutines float64
	stall      time.Duration
}{
	{10_000, 180 * time.Millisecond},
	{20_000, 350 * time.Millisecond},
	{40_000, 2 * time.Second},
	{100_000, 65 * time.Second},
}

// LeakStallEstimate says, in words, how long the leak-detection GC cycle
// is expected to stall a process with n goroutines: interpolated (log-log)
// between the measured points, bounded by the nearest one outside them.
// It is an order of magnitude, from a loaded 2-vCPU VM.
func LeakStallEstimate(n int64) string {
	first, last := leakStalls[0], leakStalls[len(leakStalls)-1]
	x := float64(n)
	switch {
	case x <= first.goroutines:
		return fmt.Sprintf("up to ~%v (measured at %d goroutines)", first.stall, int(first.goroutines))
	case x >= last.goroutines:
		return fmt.Sprintf("a minute or more (%v measured at %d goroutines, growing faster than the count)", last.stall, int(last.goroutines))
	}
	for i := 1; i < len(leakStalls); i++ {
		lo, hi := leakStalls[i-1], leakStalls[i]
		if x > hi.goroutines {
			continue
		}
		slope := math.Log(float64(hi.stall)/float64(lo.stall)) / math.Log(hi.goroutines/lo.goroutines)
		est := time.Duration(float64(lo.stall) * math.Pow(x/lo.goroutines, slope))
		return fmt.Sprintf("roughly %v (measured: %v at %d goroutines, %v at %d)",
			roundStall(est), lo.stall, int(lo.goroutines), hi.stall, int(hi.goroutines))
	}
	return "an unknown time" // not reached
}

// roundStall rounds an estimate to what it is worth: two digits.
func roundStall(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}
