package remote

import (
	"time"
)

// The pause budget.
//
// A full capture of a Go process is a traceback of every goroutine taken
// with the world stopped: its pause grows with the goroutines (and their
// depth), up to seconds. The other methods stop the world once or twice
// for a time that does not grow with them. With Options.MaxPause set, a
// full capture counts the goroutines first (debug=1), predicts the
// traceback's pause as count × cost per goroutine, and takes the
// traceback only when the prediction fits the budget; otherwise the
// execution-trace snapshot (every goroutine's id, state and stack after
// one short pause), or, from a target that serves no trace, the counts.
//
// The cost per goroutine is the target's own once one traceback was
// taken: its answer time (from the request to the first byte of the
// answer, which the runtime sends only once the traceback is done) over
// its goroutines, an upper bound since it includes the round trip and the
// smaller tracebacks net/http/pprof takes first while it grows its buffer
// (Document.FullCostPerGoroutine). Through stackdump's endpoint it is the
// pause the endpoint measured itself. Before any traceback of the target,
// PriorFullCostPerGoroutine stands for it.

// PriorFullCostPerGoroutine is the pause per goroutine a full capture of a
// target is predicted to cost before one was measured. Measured on the
// project's 2-core VM (load average 8–14, other builds running) with
// testdata/gen/pausetarget and scripts/measure-pauses.sh: the longest
// stop-the-world pause of a debug=2 request was 29–84 ms at 1,000
// goroutines parked 10–30 frames deep and 0.54–1.9 s at 20,000 (27–94 µs
// per goroutine); 5–50 ms and 0.23 s with the goroutines parked at the
// top of their stacks (5–50 µs and 12 µs per goroutine). 100 µs is above
// every measured value, so that the first prediction errs on the side of
// the target: a budget of 10 ms admits a first traceback of at most 100
// goroutines, and later ones follow the target's measured cost
// (docs/modes.md).
const PriorFullCostPerGoroutine = 100 * time.Microsecond

// Predicted pauses of the methods whose pause does not grow with the
// goroutines, the upper ends of what scripts/measure-pauses.sh measured at
// 1,000 and 20,000 goroutines under load: the trace snapshot's one pause
// 25 µs–1.8 ms (mostly under 0.2 ms), debug=1's and debug=0's two pauses
// 8 µs–12 ms each (mostly under 0.5 ms; the outliers are a descheduled
// thread while the world stops, which no method escapes).
const (
	TracePause  = 200 * time.Microsecond
	CountsPause = 500 * time.Microsecond
)

// predictFull is the pause a traceback of n goroutines is predicted to
// cost at cost per goroutine (PriorFullCostPerGoroutine when 0).
func predictFull(n int64, cost time.Duration) time.Duration {
	if cost <= 0 {
		cost = PriorFullCostPerGoroutine
	}
	return time.Duration(n) * cost
}

// methodPause is the predicted pause of one fetch, by Capture.Methods name;
// n is the goroutine count for a traceback's (0: unknown, no prediction).
func methodPause(method string, n int64, cost time.Duration) time.Duration {
	switch method {
	case "debug2":
		if n <= 0 {
			return 0
		}
		return predictFull(n, cost)
	case "trace":
		return TracePause
	case "debug1", "debug0":
		return CountsPause
	}
	return 0
}
