package goproc

import (
	"time"

	"github.com/stackdump/stackdump/stack"
)

// ProcessOptions say how ReadProcess reads a live process.
type ProcessOptions struct {
	// MaxPause is the longest the target may be stopped. The consistent
	// snapshot (one instant) is taken when its predicted stall
	// (PredictStall) fits, and cut off at MaxPause if it runs longer;
	// otherwise the goroutines are read without stopping the target, each
	// consistent in itself. 0: no bound, the consistent snapshot always.
	MaxPause time.Duration
	// NoStop reads without stopping the target, whatever MaxPause says.
	NoStop bool
	// StallPerGoroutine is what a consistent snapshot of this target
	// cost per goroutine last time (ProcessRead.StallPerGoroutine); 0:
	// the prior, StallPerGoroutine.
	StallPerGoroutine time.Duration
	// BeforeStop, when set, is called with the predicted stall and the
	// goroutines counted just before the target is stopped.
	BeforeStop func(predicted time.Duration, goroutines int)
	// System reads as GOTRACEBACK=system prints (Options.System).
	System bool
	// ProcRoot is where procfs is mounted; "" is /proc.
	ProcRoot string
}

// ProcessRead is what ReadProcess read, and how.
type ProcessRead struct {
	Dump   *stack.Dump
	Stats  Stats
	Binary *Binary
	// Counted is the goroutines counted before the read (Count);
	// Predicted the consistent snapshot's predicted stall for them.
	Counted   int
	Predicted time.Duration
	// OverBudget: Predicted was over ProcessOptions.MaxPause, so the
	// target was read without stopping it. CutOff: the consistent
	// snapshot ran past MaxPause, the target was resumed then, and it was
	// read again without stopping. StopFailed says why the target could
	// not be stopped (its threads did not stop in time), when it was read
	// without stopping for that reason.
	OverBudget, CutOff bool
	StopFailed         error
}

// StallPerGoroutine is what the consistent snapshot cost the target per
// goroutine beyond StopStall, for the next ReadProcess of the same target;
// 0 when it was not stopped.
func (pr *ProcessRead) StallPerGoroutine() time.Duration {
	if !pr.Stats.Stopped || pr.Stats.Goroutines == 0 || pr.CutOff {
		return 0
	}
	return max(pr.Stats.Stall-StopStall, 0) / time.Duration(pr.Stats.Goroutines)
}
