package exectrace

import (
	"fmt"
	"io"

	"golang.org/x/exp/trace"

	"github.com/stackdump/stackdump/internal/tracesnap"
)

// replayXExp reads a trace with golang.org/x/exp/trace (the versions
// tracesnap does not decode) and adds its goroutine transitions and syncs
// to b. It returns the number of events read and the error that stopped
// the reading, if any; a panic of the parser on malformed input is
// returned as an error.
func replayXExp(rd *trace.Reader, b *tracesnap.Builder) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("trace parser failed: %v", p)
		}
	}()
	st := &xexpStacks{index: make(map[trace.Stack]int32)}
	var ev tracesnap.Event
	for {
		e, err := rd.ReadEvent()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		switch e.Kind() {
		case trace.EventSync:
			st.reset()
			ev = tracesnap.Event{Kind: tracesnap.KindSync, Time: int64(e.Time())}
			if cs := e.Sync().ClockSnapshot; cs != nil {
				ev.Clock = &tracesnap.ClockSnapshot{Trace: int64(cs.Trace), Wall: cs.Wall, Mono: cs.Mono}
			}
			b.Add(&ev)
		case trace.EventStateTransition:
			t := e.StateTransition()
			if t.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			from, to := t.Goroutine()
			stk := t.Stack
			if stk == trace.NoStack && (from == to || from == trace.GoUndetermined) {
				// A status event (GoStatusStack: the only transitions
				// from the state itself or from an undetermined one).
				// x/exp/trace before its go 1.26 support (the version
				// the module requires, for its go line) gives its stack
				// as the event's only; later versions as both.
				stk = e.Stack()
			}
			ev = tracesnap.Event{
				Kind: tracesnap.KindTransition, Time: int64(e.Time()),
				G: int64(t.Resource.Goroutine()), From: tracesnap.GoState(from), To: tracesnap.GoState(to),
				Stack: st.stack(stk), EventStack: st.stack(e.Stack()),
				EventG: int64(e.Goroutine()), Reason: t.Reason,
			}
			b.Add(&ev)
		}
	}
}

// xexpStacks numbers the x/exp/trace stacks of one generation for
// tracesnap (its Stack.Index) and resolves their frames.
type xexpStacks struct {
	index  map[trace.Stack]int32
	stacks []trace.Stack
	frames [][]tracesnap.Frame
}

func (s *xexpStacks) reset() {
	clear(s.index)
	s.stacks, s.frames = s.stacks[:0], s.frames[:0]
}

func (s *xexpStacks) stack(st trace.Stack) tracesnap.Stack {
	if st == trace.NoStack {
		return tracesnap.Stack{}
	}
	i, ok := s.index[st]
	if !ok {
		i = int32(len(s.stacks))
		s.index[st] = i
		s.stacks = append(s.stacks, st)
		s.frames = append(s.frames, nil)
	}
	return tracesnap.MakeStack(s, i)
}

// StackFrames implements tracesnap.StackSource.
func (s *xexpStacks) StackFrames(i int32) []tracesnap.Frame {
	if s.frames[i] == nil {
		fs := []tracesnap.Frame{}
		for f := range s.stacks[i].Frames() {
			fs = append(fs, tracesnap.Frame{PC: f.PC, Func: f.Func, File: f.File, Line: f.Line})
		}
		s.frames[i] = fs
	}
	return s.frames[i]
}
