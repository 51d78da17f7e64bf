package tracesnap

import "time"

// GoState is a goroutine's state, numbered and named as
// golang.org/x/exp/trace's GoState.
type GoState uint8

// Goroutine states.
const (
	GoUndetermined GoState = iota // nothing is known about the goroutine
	GoNotExist                    // it does not exist
	GoRunnable                    // runnable, not running
	GoRunning                     // running
	GoWaiting                     // waiting for something
	GoSyscall                     // in a system call
)

// String returns the state's name as x/exp/trace spells it.
func (s GoState) String() string {
	switch s {
	case GoUndetermined:
		return "Undetermined"
	case GoNotExist:
		return "NotExist"
	case GoRunnable:
		return "Runnable"
	case GoRunning:
		return "Running"
	case GoWaiting:
		return "Waiting"
	case GoSyscall:
		return "Syscall"
	}
	return "Bad"
}

// NoGoroutine is the goroutine id of an event that happened where no
// goroutine was running.
const NoGoroutine int64 = -1

// statusState maps a wire goroutine status to its state, as x/exp/trace
// does (GoBad is GoUndetermined).
var statusState = [numWireGoStatus]GoState{
	wireGoRunnable: GoRunnable,
	wireGoRunning:  GoRunning,
	wireGoSyscall:  GoSyscall,
	wireGoWaiting:  GoWaiting,
}

// Frame is one frame of a trace stack, innermost first in a stack.
type Frame struct {
	PC   uint64
	Func string
	File string
	Line uint64
}

// Stack is a stack of one generation of a trace. The zero Stack is no
// stack; a Stack can be present and empty (a goroutine created with stack
// id 0). Stacks of one generation are equal when their ids are; Index
// numbers them from 0 within their generation, for memo tables.
type Stack struct {
	src   StackSource
	index int32 // -1 for a present empty stack
}

// StackSource resolves the stacks of one generation.
type StackSource interface {
	// StackFrames returns the frames of the stack at index i, innermost
	// first; the slice is shared and must not be modified.
	StackFrames(i int32) []Frame
}

// MakeStack returns the stack at index i of src (-1: present and empty).
// It is for adapters that feed another trace reader's events to a
// Builder.
func MakeStack(src StackSource, i int32) Stack { return Stack{src: src, index: i} }

// Present reports whether the event has a stack (possibly empty).
func (s Stack) Present() bool { return s.src != nil }

// Index returns the stack's index within its generation, -1 for a present
// empty stack.
func (s Stack) Index() int32 { return s.index }

// Frames returns the stack's frames, innermost first; nil for no stack or
// an empty one. The slice is shared and must not be modified.
func (s Stack) Frames() []Frame {
	if s.src == nil || s.index < 0 {
		return nil
	}
	return s.src.StackFrames(s.index)
}

// StackFrames implements StackSource for a generation's stack table.
func (t *tables) StackFrames(i int32) []Frame { return t.stackFrames(i) }

// ClockSnapshot is a generation's reading of the trace clock with the
// monotonic and wall clocks (x/exp/trace's ClockSnapshot).
type ClockSnapshot struct {
	Trace int64 // trace time, ns
	Wall  time.Time
	Mono  uint64
}

// Kind says what an Event is.
type Kind uint8

// Event kinds.
const (
	// KindSync is a generation boundary (x/exp/trace's EventSync): the
	// stacks of the generation before are not those of the one after.
	KindSync Kind = iota + 1
	// KindTransition is a goroutine state transition.
	KindTransition
)

// Event is a generation boundary or a goroutine state transition, as
// x/exp/trace reports them (its Event, StateTransition and Sync, reduced
// to what a goroutine snapshot uses).
type Event struct {
	Kind Kind
	// Time is the event's time in ns, as x/exp/trace's Event.Time (which
	// makes the times of successive events strictly increasing).
	Time int64

	// G is the goroutine whose state changes, From and To its states.
	G        int64
	From, To GoState
	// Stack is the transition's stack: the goroutine's own where it
	// blocks, stops or is seen at a generation's end; for a creation, the
	// new goroutine's start function.
	Stack Stack
	// EventStack is the event's stack: for a creation, the creator's, at
	// the go statement.
	EventStack Stack
	// EventG is the goroutine running where the event happened
	// (NoGoroutine when none): for a creation, the creator.
	EventG int64
	// Reason is the trace's reason for a block or stop.
	Reason string

	// Clock is a sync's clock snapshot, nil when the generation after it
	// has none (the trace's end).
	Clock *ClockSnapshot
}
