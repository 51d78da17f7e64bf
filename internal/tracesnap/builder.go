package tracesnap

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// Builder replays the goroutine transitions of a trace (a Reader's, or
// another trace reader's turned into Events) and makes one stack.Routine
// per goroutine alive at the end, with the state and stack of its last
// event.
//
// What a trace does not carry is filled as honestly as possible:
//
//   - Wait reasons of goroutines blocked before the trace are inferred from
//     the runtime frames of their stacks (Routine.Inferred = ["state"]);
//     goroutines that blocked inside it keep the trace's reason, in debug=2
//     wording.
//   - Goroutines that ran, or were woken, during the trace have a stale
//     stack, or none (go.dev/issue/65634): state running or runnable,
//     Routine.Stale set.
//   - Stacks deeper than the tracer's 128-frame limit lose their outer
//     frames, and asynchronously preempted goroutines keep only
//     runtime.asyncPreempt: such stacks are marked Elided at their end.
//   - Wait minutes, locked to thread, arguments, pc offsets, labels and
//     ancestors are not in a trace: Missing names them.
//
// Runtime-internal frames and the runtime's own goroutines are dropped, as
// a debug=2 dump at the default GOTRACEBACK level drops them, so that a
// trace dump and a full dump of the same process show the same stacks.
type Builder struct {
	opts   BuildOptions
	stacks *traceStacks
	gs     goTable[traceG]
	order  []*traceG
	notes  []*stack.ParseError

	// Events counts the events added; First and Last are the times of the
	// first and last, Clock the last clock snapshot (nil when none).
	Events      int
	First, Last int64
	Clock       *ClockSnapshot
	clock       ClockSnapshot
}

// BuildOptions configure a Builder.
type BuildOptions struct {
	// Table interns frames and stacks; nil means a new Table.
	Table *stack.Table
	// Version is the trace's version (go 1.N), which says where the tracer
	// cuts deep stacks.
	Version int
	// Goroutines, when positive, is about how many goroutines the trace
	// has (runtime.NumGoroutine when it was taken): tables are sized for
	// them up front.
	Goroutines int
	// OmitCreatedBy, when not empty, names a function whose goroutines,
	// created during the trace, are the capturing program's own helpers:
	// they are left out, as runtime/trace's reader goroutine always is.
	OmitCreatedBy string
}

// Missing lists what a trace dump does not carry, by JSON field name
// (stack.Capture.Missing): created_by and parent_id are known only for
// goroutines created during the trace.
func Missing() []string {
	return []string{"wait_minutes", "locked", "args", "offset", "labels", "ancestors", "created_by", "parent_id"}
}

// inferredState is shared by every routine whose state was inferred; it
// is never appended to in place (its capacity is its length).
var inferredState = []string{"state"}

// traceG is the replayed state of one goroutine.
type traceG struct {
	id    int64
	state GoState
	// stack is the last stack seen, nil when none was; fresh says it was
	// taken since the goroutine last ran, so it is its current stack.
	stack *traceStack
	fresh bool
	// reason is the block reason of a GoBlock inside the trace; it holds
	// until the goroutine runs again.
	reason    string
	parent    int64
	createdBy *stack.Frame
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts BuildOptions) *Builder {
	if opts.Table == nil {
		opts.Table = stack.NewTable()
	}
	b := &Builder{opts: opts, stacks: newTraceStacks(opts.Table, opts.Version)}
	if opts.Goroutines > 0 {
		b.gs.reserve(opts.Goroutines + opts.Goroutines/8 + 64) // ids run a little past the count
	}
	return b
}

// Add applies one event.
func (b *Builder) Add(ev *Event) {
	if b.Events == 0 {
		b.First = ev.Time
	}
	b.Events++
	b.Last = ev.Time
	switch ev.Kind {
	case KindSync:
		b.stacks.reset()
		if ev.Clock != nil {
			b.clock = *ev.Clock
			b.Clock = &b.clock
		}
	case KindTransition:
		b.transition(ev)
	}
}

func (b *Builder) transition(ev *Event) {
	if ev.To == GoNotExist {
		b.gs.remove(ev.G)
		return
	}
	g := b.gs.get(ev.G)
	if g == nil {
		g = b.gs.add(ev.G)
		g.id = ev.G
	}
	stk := b.stacks.get(ev.Stack)
	switch {
	case ev.From == GoNotExist:
		// Created: the transition's stack is the new goroutine's start
		// function, the event's stack is its creator's, innermost frame
		// at the go statement.
		g.stack, g.fresh, g.reason = stk, stk != nil, ""
		if ev.EventG != NoGoroutine {
			g.parent = ev.EventG
		}
		g.createdBy = b.stacks.frameOf(ev.EventStack)
	case ev.To == GoRunning:
		g.fresh, g.reason = false, ""
	case stk != nil:
		g.stack, g.fresh = stk, true
	}
	if ev.To == GoWaiting && ev.From == GoRunning {
		g.reason = ev.Reason
	}
	g.state = ev.To
}

// Finish orders the goroutines to yield: every live one by id, except the
// runtime's own goroutines and those the tracer itself started. It returns how many there are; Routine(i) makes
// the i-th. Notes says what the reader should know about them.
func (b *Builder) Finish() int {
	var preempted []int64
	b.order = make([]*traceG, 0, b.gs.len())
	for _, g := range b.gs.ascending() {
		if g.stack != nil && g.stack.system {
			continue
		}
		if g.createdBy != nil && b.helper(g.createdBy.Func) {
			continue
		}
		if g.stack != nil && g.stack.preempted {
			preempted = append(preempted, g.id)
		}
		b.order = append(b.order, g)
	}
	if len(preempted) > 0 {
		what := "goroutines (%s) were asynchronously preempted: the tracer's stacks end at runtime.asyncPreempt, so their own frames are missing (marked elided)"
		if len(preempted) == 1 {
			what = "goroutine (%s) was asynchronously preempted: the tracer's stack ends at runtime.asyncPreempt, so its own frames are missing (marked elided)"
		}
		b.notes = append(b.notes, &stack.ParseError{Msg: fmt.Sprintf("%d "+what, len(preempted), idList(preempted, 10))})
	}
	return len(b.order)
}

// helper reports whether goroutines created by fn are the capturing
// program's own: runtime/trace's reader, or opts.OmitCreatedBy's.
func (b *Builder) helper(fn string) bool {
	return strings.HasPrefix(fn, "runtime/trace.") || fn != "" && fn == b.opts.OmitCreatedBy
}

// Notes returns what Finish found worth a warning.
func (b *Builder) Notes() []*stack.ParseError { return b.notes }

// Routine fills r with the i-th goroutine of Finish's order. r's previous
// content is overwritten, so one Routine can be reused for all of them
// when each is written out before the next is made.
func (b *Builder) Routine(i int, r *stack.Routine) {
	g := b.order[i]
	*r = stack.Routine{ID: g.id, Count: 1, ParentID: g.parent, CreatedBy: g.createdBy, Stack: b.stacks.empty.stack}
	inferred := ""
	if g.stack != nil {
		r.Stack, inferred = g.stack.stack, g.stack.reason
	}
	switch g.state {
	case GoWaiting:
		switch {
		case g.reason != "":
			r.State = waitReasonFromTrace(g.reason, inferred)
		case inferred != "" && g.fresh:
			r.State, r.Inferred = inferred, inferredState
		default:
			r.State = "waiting"
		}
		r.Stale = !g.fresh
	case GoRunnable:
		r.State, r.Stale = "runnable", !g.fresh
	case GoRunning:
		r.State, r.Stale = "running", true
	case GoSyscall:
		r.State, r.Stale = "syscall", !g.fresh
	default:
		r.State, r.Stale = strings.ToLower(g.state.String()), true
	}
}

// RoutineStack returns the Stack and Stale that Routine(i) would give,
// without making the routine.
func (b *Builder) RoutineStack(i int) (st *stack.Stack, stale bool) {
	g := b.order[i]
	st = b.stacks.empty.stack
	if g.stack != nil {
		st = g.stack.stack
	}
	return st, g.state == GoRunning || !g.fresh
}

// idList formats up to max ids, "1, 2, 3 and 7 more".
func idList(ids []int64, max int) string {
	var b []byte
	for i, id := range ids {
		if i == max {
			b = fmt.Appendf(b, " and %d more", len(ids)-max)
			break
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(b)
}

// ReadAll adds every event of rd. It returns the error that stopped the
// reading, nil at the trace's end.
func (b *Builder) ReadAll(rd *Reader) error {
	for {
		ev, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		b.Add(ev)
	}
}
