package remote

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/stack"
)

// openPID reads a pid: target from its memory (goproc.ReadProcess): every
// goroutine, within Options.MaxPause (the consistent snapshot when its
// predicted stall fits, else a read that never stops the target), bounded
// by Options.Timeout. Only ModeFull means anything here.
func openPID(ctx context.Context, t Target, opts Options, ro formats.ReadOptions) (*Document, error) {
	if opts.Mode != ModeFull {
		return nil, &sentinelError{
			msg: fmt.Sprintf("mode %s: a pid: target is read from its memory, every goroutine with its id, state and stack (mode full); for counts per stack, group what is read (package dedupe) or write it as debug=1 text", opts.Mode),
			is:  ErrModeNotServed}
	}
	if !opts.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, opts.deadline)
		defer cancel()
	}
	po := goproc.ProcessOptions{MaxPause: opts.MaxPause, StallPerGoroutine: opts.Pauses.StallPerGoroutine()}
	if opts.BeforeFull != nil {
		po.BeforeStop = func(predicted time.Duration, n int) { opts.BeforeFull(predicted, int64(n)) }
	}
	pr, err := goproc.ReadProcess(ctx, t.PID, po)
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(pr.Stats.Bytes) // the bytes read from its memory
	}
	doc := &Document{
		URL:           "pid:" + strconv.Itoa(t.PID),
		Methods:       pr.Dump.Source.Capture.Methods,
		Goroutines:    int64(pr.Counted),
		FullPredicted: pr.Predicted,
		OverBudget:    pr.OverBudget,
		CutOff:        pr.CutOff,
		mode:          ModeFull,
		rd:            &dumpSource{d: pr.Dump},
		stall:         pr.StallPerGoroutine(),
	}
	return doc, nil
}

// dumpSource is one dump made in memory, read as a stack.DumpSource: the
// dump, then its routines and its warnings.
type dumpSource struct {
	d    *stack.Dump
	done bool
}

func (s *dumpSource) Next() (*stack.Dump, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	return s.d, nil
}

func (s *dumpSource) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		for _, r := range s.d.Routines {
			if !yield(r, nil) {
				return
			}
		}
		for _, w := range s.d.Warnings {
			if !yield(nil, w) {
				return
			}
		}
	}
}
