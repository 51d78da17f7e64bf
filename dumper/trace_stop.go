package dumper

import (
	"runtime"
	"time"
)

// Stopping the trace beside the labels' walk.
//
// A trace-mode capture walks the goroutines twice: trace.Stop's walk
// writes each one's status and stack into the trace (frame pointers,
// ≈0.3–0.9 µs a goroutine), and the goroutine profile's walk reads each
// one's labels (the runtime's full unwinder, as long as
// runtime.GoroutineProfile: ≈0.5–2.5 µs). At a million goroutines they
// take about 0.6 and 1.0 times runtime.GoroutineProfile; on two CPUs they
// run side by side, which costs the longer of the two instead of their
// sum.
//
// One thing orders them: trace.Stop's walk is runtime code that a
// stop-the-world can take only now and then (the profile's first stop,
// started while it ran, waited 115 µs to 167 ms at 1M goroutines), and
// the profile's walk begins and ends with a stop-the-world of its own. So the profile's walk is started first, and
// trace.Stop is called once the walk's first stop is over: seen as one
// more pause in runtime/metrics' histogram since the walk was started.
// Its second stop comes at the end of the walk, after trace.Stop has
// passed it: measured at 1M goroutines parked 0, 3–12 and 60 frames deep
// (a throwaway test, 2026-12-02), the tracer's walk took 0.34–0.66 of the
// time the profile's did, as long beside it as alone, and the longest
// stop of a capture was 29–262 µs against 29–229 µs one after the other
// in the same runs (a loaded machine; BenchmarkCapture1M's are in
// docs/PERFORMANCE.md).
//
// What can still go wrong: a stop-the-world of someone else's in the few
// milliseconds between starting the walk and its first stop is taken for
// it, and that first stop then waits for the tracer's walk, as any stop
// of the program's does while trace.Stop runs.
//
// The profile's snapshot is the world as its first stop left it, and the
// trace was already recording then: a goroutine whose stack moved between
// the two snapshots ran during the trace, which marks it stale, and the
// join leaves stale goroutines alone (trace_labels.go).

// labelsBesideMin is the fewest goroutines for which the two walks run
// side by side (a variable for the tests). trace.Stop starts a few
// milliseconds after the profile's first stop (the poll, the timer's
// slack), and below it the profile's walk is too short for the tracer's
// to be sure to pass it: at 10,000 goroutines (walks of 6–10 ms) the
// tracer's still ran at the profile's second stop in one capture of
// three, which then waited 327 µs. Side by side saves a few tens of
// milliseconds at most there.
var labelsBesideMin = 100_000

// labelsStartWait bounds how long trace.Stop waits for the profile's walk
// to begin (its records for a million goroutines are allocated first,
// 3–5 ms, and it queues behind any other goroutine profile). Past it,
// the trace is stopped after the labels instead.
const labelsStartWait = 100 * time.Millisecond

// besideLabelsFunc creates the goroutine that takes the labels beside
// the tracer's walk; tracesnap leaves the goroutines it creates out of the
// dump, as it does the runtime/trace reader's.
const besideLabelsFunc = "github.com/stackdump/stackdump/dumper.stopBesideLabels"

// labelsPoll is how often the start of the profile's walk is looked for:
// seldom enough that the looking (a runtime/metrics read of a few µs) is
// rarely what the walk's first stop has to preempt, often enough that
// trace.Stop starts well before the profile's walk ends (at
// labelsBesideMin goroutines: ≈50–150 ms).
const labelsPoll = 200 * time.Microsecond

// walksBeside reports whether a capture of a process with this many
// goroutines takes its two walks side by side: not when asked for serial
// walks (CaptureOptions.SerialWalks), with fewer than labelsBesideMin
// goroutines or with one P.
func walksBeside(goroutines int, serial bool) bool {
	return !serial && goroutines >= labelsBesideMin && runtime.GOMAXPROCS(0) >= 2
}

// stopBesideLabels stops the trace (stop) and takes the labels (take):
// side by side when beside, else stop then take on the calling goroutine.
// It returns the labels and whether stop ran beside take's walk.
func stopBesideLabels(beside bool, stop func(), take func() *traceLabelSet) (*traceLabelSet, bool) {
	if !beside {
		stop()
		return take(), false
	}
	before := readPauses()
	done := make(chan *traceLabelSet, 1)
	go func() { done <- take() }() // left out of the dump (besideLabelsFunc)
	deadline := time.Now().Add(labelsStartWait)
	for readPauses().since(before).Count == 0 {
		select {
		case ls := <-done:
			// Taken without a pause seen (no walk, or a fallback that
			// failed): nothing runs beside the tracer's walk.
			stop()
			return ls, false
		default:
		}
		if time.Now().After(deadline) {
			ls := <-done
			stop()
			return ls, false
		}
		time.Sleep(labelsPoll)
	}
	stop()
	return <-done, true
}
