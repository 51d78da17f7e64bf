package tracesnap

import (
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// traceCutFrames returns how many frames a stack of a trace of the given
// version has when the tracer cut it, keeping the innermost frames with no
// marker. Go 1.26 cuts at tracev2.MaxFramesPerStack (128) frames after
// inline expansion; Go 1.23–1.25 unwind into a 128-entry buffer whose
// first entry is a marker and then drop the last pc as runtime.goexit even
// when the walk was cut, which leaves 126 pcs (more frames if some were
// inlined). A stack that happens to be exactly that deep is marked too.
func traceCutFrames(version int) int {
	if version >= 26 {
		return 128
	}
	return 126
}

// traceStack is what one trace stack becomes: the interned stack as
// debug=2 would print it, and the facts read from its full frames.
type traceStack struct {
	stack *stack.Stack
	// reason is the wait reason the runtime frames imply, "" when none.
	reason string
	// system is set for the runtime's own goroutines (GC workers,
	// sweeper, tracer), which debug=2 hides.
	system bool
	// preempted is set when the stack ends in runtime.asyncPreempt: the
	// tracer's frame-pointer unwinder stops at the signal frame, so the
	// goroutine's own frames are lost.
	preempted bool
	// entry is the outermost function, "" when the stack is cut.
	entry string
}

// traceStacks converts trace stacks to interned stacks, once per distinct
// stack of a generation.
type traceStacks struct {
	t     *stack.Table
	cutAt int           // frames of a stack the tracer cut (traceCutFrames)
	memo  []*traceStack // by Stack.Index()+1, for the current generation
	funcs []string
	kept  []*stack.Frame
	empty *traceStack
}

func newTraceStacks(t *stack.Table, version int) *traceStacks {
	return &traceStacks{
		t:     t,
		cutAt: traceCutFrames(version),
		empty: &traceStack{stack: t.Stack(nil, stack.Elision{})},
	}
}

// maxMemo bounds the memo's length: stack indexes are dense in the traces
// the runtime writes, and a corrupt trace cannot make the memo huge.
const maxMemo = 1 << 20

// reset drops the memo at a generation boundary: stack indexes of
// different generations are unrelated, and keeping them would pin every
// generation's tables in memory.
func (s *traceStacks) reset() { clear(s.memo) }

// get returns the converted stack, or nil for no stack.
func (s *traceStacks) get(st Stack) *traceStack {
	if !st.Present() {
		return nil
	}
	i := int(st.Index()) + 1
	if i < len(s.memo) {
		if ts := s.memo[i]; ts != nil {
			return ts
		}
	}
	ts := s.convert(st.Frames())
	if i < maxMemo {
		if i >= len(s.memo) {
			s.memo = append(s.memo, make([]*traceStack, i+1-len(s.memo))...)
		}
		s.memo[i] = ts
	}
	return ts
}

// convert builds a traceStack. Runtime-internal frames are dropped as the
// runtime's own traceback does at the default GOTRACEBACK level (showframe:
// unexported runtime.* functions), so that the stack equals the one a
// debug=2 dump of the same goroutine shows; the wait reason is inferred
// first, from the full stack.
func (s *traceStacks) convert(frames []Frame) *traceStack {
	s.funcs, s.kept = s.funcs[:0], s.kept[:0]
	for _, f := range frames {
		s.funcs = append(s.funcs, f.Func)
		if !showTraceFrame(f.Func, len(s.funcs) == 1) {
			continue
		}
		s.kept = append(s.kept, s.t.Frame(stack.Frame{Func: f.Func, File: f.File, Line: int(f.Line)}))
	}
	if len(s.funcs) == 0 {
		return s.empty
	}
	ts := &traceStack{reason: inferWaitReason(s.funcs)}
	outer := s.funcs[len(s.funcs)-1]
	cut := false
	switch {
	case outer == "runtime.asyncPreempt" || outer == "runtime.asyncPreempt2":
		ts.preempted, cut = true, true
	case len(s.funcs) >= s.cutAt:
		cut = true
	default:
		ts.entry = outer
		ts.system = isSystemEntry(outer, s.funcs)
	}
	if cut {
		ts.stack = s.t.Stack(s.kept, stack.Elision{Elided: true, At: len(s.kept)})
	} else {
		ts.stack = s.t.Stack(s.kept, stack.Elision{})
	}
	return ts
}

// frameOf returns the innermost frame of st, interned, or nil.
func (s *traceStacks) frameOf(st Stack) *stack.Frame {
	for _, f := range st.Frames() {
		return s.t.Frame(stack.Frame{Func: f.Func, File: f.File, Line: int(f.Line)})
	}
	return nil
}

// showTraceFrame reports whether debug=2 prints a frame of function fn
// (runtime showfuncinfo at GOTRACEBACK=single/all): everything but
// unexported runtime.* functions; runtime.gopanic in the middle of a stack
// and the finalizer and cleanup runners are kept as context.
func showTraceFrame(fn string, innermost bool) bool {
	switch fn {
	case "runtime.runFinalizers", "runtime.runCleanups":
		return true
	case "runtime.gopanic":
		return !innermost
	}
	if !strings.Contains(fn, ".") {
		return false
	}
	if !strings.HasPrefix(fn, "runtime.") {
		return true
	}
	rest := fn[len("runtime."):]
	return rest != "" && 'A' <= rest[0] && rest[0] <= 'Z'
}

// isSystemEntry reports whether a goroutine whose outermost function is
// entry is one of the runtime's own (runtime isSystemGoroutine): started
// in package runtime, except runtime.main and the finalizer and cleanup
// runners while they run user code.
func isSystemEntry(entry string, funcs []string) bool {
	switch entry {
	case "runtime.main", "runtime.corostart", "runtime.handleAsyncEvent":
		return false
	case "runtime.runFinalizers", "runtime.runCleanups":
		for _, fn := range funcs {
			if !strings.HasPrefix(fn, "runtime.") {
				return false
			}
		}
		return true
	}
	return strings.HasPrefix(entry, "runtime.")
}
