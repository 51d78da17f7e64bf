package goproc

import "time"

// The stall of a consistent snapshot (Read with a Stopper), before one was
// measured on the target: stopping every thread and listing the goroutines
// costs about StopStall, reading each goroutine's record while stopped
// about StallPerGoroutine more (docs/pid.md; measured by the target's own
// ticker in bench/).
const (
	StopStall         = 500 * time.Microsecond
	StallPerGoroutine = 2 * time.Microsecond
)

// PredictStall predicts how long a consistent snapshot of n goroutines
// stops the target: StopStall plus perGoroutine (StallPerGoroutine when 0)
// for each.
func PredictStall(n int, perGoroutine time.Duration) time.Duration {
	if perGoroutine <= 0 {
		perGoroutine = StallPerGoroutine
	}
	return StopStall + time.Duration(n)*perGoroutine
}
