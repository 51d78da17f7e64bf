package exectrace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// Reading a runtime/trace execution trace as a goroutine dump.
//
// Since Go 1.23 the tracer ends every generation (at trace.Stop, at the
// periodic ~1 s advance, in FlightRecorder.WriteTo) by walking every
// goroutine that did nothing during it and recording its status and stack
// (a GoStatusStack event); goroutines that acted during the window are
// described by their own events (GoCreate, GoBlock, GoUnblock, GoStop…).
// Replaying the events with a small state machine per goroutine gives each
// one's last state and last stack: a full dump taken with a single short
// stop-the-world (trace.Start's) instead of one that lasts as long as
// runtime.Stack needs to format every goroutine. See docs/modes.md.
//
// What a trace does not carry is filled as honestly as possible:
//
//   - Wait reasons of goroutines blocked before the window are inferred from
//     the runtime frames of their stacks (Routine.Inferred = ["state"]);
//     goroutines that blocked inside it keep the trace's reason, in debug=2
//     wording.
//   - Goroutines that ran, or were woken, during the window have a stale
//     stack, or none (go.dev/issue/65634): state running or runnable,
//     Routine.Stale set.
//   - Stacks deeper than the tracer's 128-frame limit lose their outer
//     frames, and asynchronously preempted goroutines keep only
//     runtime.asyncPreempt: such stacks are marked Elided at their end.
//   - Wait minutes, locked to thread, arguments, pc offsets, labels and
//     ancestors are not in a trace: Dump.Source.Capture.Missing names them.
//
// Runtime-internal frames and the runtime's own goroutines are dropped, as
// a debug=2 dump at the default GOTRACEBACK level drops them, so that a
// trace dump and a full dump of the same process show the same stacks.

// minTraceVersion is the first trace version whose end-of-generation
// goroutine statuses carry stacks (EvGoStatusStack).
const minTraceVersion = 23

// traceMissing lists what a trace dump does not carry, by JSON field name
// (Capture.Missing): created_by and parent_id are known only for goroutines
// created during the trace.
var traceMissing = []string{"wait_minutes", "locked", "args", "offset", "labels", "ancestors", "created_by", "parent_id"}

// inferredState is shared by every routine whose state was inferred; it
// is never appended to in place (its capacity is its length).
var inferredState = []string{"state"}

// traceG is the replayed state of one goroutine.
type traceG struct {
	id    int64
	state trace.GoState
	// stack is the last stack seen, nil when none was; fresh says it was
	// taken since the goroutine last ran, so it is its current stack.
	stack *traceStack
	fresh bool
	// reason is the block reason of a GoBlock inside the window; it holds
	// until the goroutine runs again.
	reason    string
	parent    int64
	createdBy *stack.Frame
	gone      bool
}

type traceDecoder struct {
	in     *codec.Stream
	opts   codec.Options
	stacks *traceStacks

	gs traceGoroutines

	started bool
	dump    *stack.Dump
	order   []int32 // indices into gs of the routines to yield, by id
	next    int
	notes   []*stack.ParseError
	slab    []stack.Routine // routines are allocated routineSlab at a time
}

// routineSlab is how many Routines are allocated together: one allocation
// instead of 256 for the million routines of a big trace.
const routineSlab = 256

// newTraceDecoder returns the decoder of a runtime/trace execution trace.
// The whole trace is replayed by the first nextDump (events are streamed;
// memory follows goroutines and distinct stacks), which returns one dump
// of every goroutine at the end of the trace.
func newTraceDecoder(in *codec.Stream, opts codec.Options) codec.Decoder {
	if opts.Table == nil {
		opts.Table = stack.NewTable()
	}
	return &traceDecoder{in: in, opts: opts}
}

func (d *traceDecoder) NextDump() (*stack.Dump, error) {
	if d.started {
		return nil, io.EOF
	}
	d.started = true
	version, err := readTraceVersion(d.in)
	if err != nil {
		return nil, err
	}
	d.stacks = newTraceStacks(d.opts.Table, version)
	rd, err := trace.NewReader(d.in.R)
	if err != nil {
		return nil, fmt.Errorf("execution trace (go 1.%d): %w; a newer stackdump may read it", version, err)
	}
	dump := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTrace}}
	first, last, clock, n, rerr := d.replay(rd)
	if rerr != nil {
		if n == 0 {
			return nil, fmt.Errorf("execution trace: %w", rerr)
		}
		dump.Truncated = true
		d.notes = append(d.notes, &stack.ParseError{Offset: d.in.BytesRead(), Msg: fmt.Sprintf(
			"execution trace ends early or is corrupt after %d events (%v); goroutines are as of the last event read", n, rerr)})
	}
	if clock != nil {
		dump.Source.CapturedAt = clock.Wall.Add(last.Sub(clock.Trace))
	}
	d.finish()
	dump.Source.Capture = &stack.Capture{
		Mode:       "trace",
		Goroutines: len(d.order),
		Duration:   last.Sub(first),
		Missing:    slices.Clone(traceMissing),
	}
	d.dump = dump
	return dump, nil
}

func (d *traceDecoder) NextRoutine() (*stack.Routine, error) {
	if d.dump == nil {
		return nil, codec.ErrEndOfDump
	}
	if d.next < len(d.order) {
		g := d.gs.at(d.order[d.next])
		d.next++
		d.dump.Total++
		return d.routine(g), nil
	}
	if len(d.notes) > 0 {
		pe := d.notes[0]
		d.notes = d.notes[1:]
		return nil, pe
	}
	return nil, codec.ErrEndOfDump
}

// readTraceVersion checks the trace header ("go 1.26 trace\x00\x00\x00")
// without consuming it, and refuses traces too old to hold stacks.
func readTraceVersion(in *codec.Stream) (int, error) {
	head, _ := in.R.Peek(16)
	rest, ok := strings.CutPrefix(string(head), "go 1.")
	num, _, ok2 := strings.Cut(rest, " trace\x00")
	v, err := strconv.Atoi(num)
	if !ok || !ok2 || err != nil {
		return 0, errors.New("execution trace: no \"go 1.N trace\" header")
	}
	if v < minTraceVersion {
		return v, fmt.Errorf("execution trace from Go 1.%d: traces before Go 1.%d hold no stacks for blocked goroutines; "+
			"take a full dump instead (runtime.Stack, /debug/pprof/goroutine?debug=2, or stackdump's full mode)", v, minTraceVersion)
	}
	return v, nil
}

// replay reads every event, updating the goroutine table. It returns the
// times of the first and last events, the last clock snapshot, the number
// of events read and the error that stopped reading, if any. A panic of
// the trace parser on malformed input is returned as an error.
func (d *traceDecoder) replay(rd *trace.Reader) (first, last trace.Time, clock *trace.ClockSnapshot, n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("trace parser failed: %v", p)
		}
	}()
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return first, last, clock, n, nil
		}
		if err != nil {
			return first, last, clock, n, err
		}
		if n == 0 {
			first = ev.Time()
		}
		n++
		last = ev.Time()
		switch ev.Kind() {
		case trace.EventSync:
			d.stacks.reset()
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				clock = cs
			}
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind == trace.ResourceGoroutine {
				d.transition(ev, st)
			}
		}
	}
}

// transition applies one goroutine state transition.
func (d *traceDecoder) transition(ev trace.Event, st trace.StateTransition) {
	id := int64(st.Resource.Goroutine())
	from, to := st.Goroutine()
	if to == trace.GoNotExist {
		d.gs.remove(id)
		return
	}
	g := d.gs.lookup(id)
	if g == nil {
		g = d.gs.create(id)
	}
	stk := d.stacks.get(st.Stack)
	switch {
	case from == trace.GoNotExist:
		// Created: the transition's stack is the new goroutine's start
		// function, the event's stack is its creator's, innermost frame
		// at the go statement.
		g.stack, g.fresh, g.reason = stk, stk != nil, ""
		if p := ev.Goroutine(); p != trace.NoGoroutine {
			g.parent = int64(p)
		}
		g.createdBy = d.stacks.frameOf(ev.Stack())
	case to == trace.GoRunning:
		g.fresh, g.reason = false, ""
	case stk != nil:
		g.stack, g.fresh = stk, true
	}
	if to == trace.GoWaiting && from == trace.GoRunning {
		g.reason = st.Reason
	}
	g.state = to
}

// finish orders the goroutines to yield: every live one by id, except the
// runtime's own goroutines and those the tracer itself started.
func (d *traceDecoder) finish() {
	var preempted []int64
	type byID struct {
		id int64
		i  int32
	}
	var keep []byID
	for i := range int32(d.gs.n) {
		g := d.gs.at(i)
		if g.gone || (g.stack != nil && g.stack.system) {
			continue
		}
		if g.createdBy != nil && strings.HasPrefix(g.createdBy.Func, "runtime/trace.") {
			continue
		}
		if g.stack != nil && g.stack.preempted {
			preempted = append(preempted, g.id)
		}
		keep = append(keep, byID{g.id, i})
	}
	slices.SortFunc(keep, func(a, b byID) int { return cmp.Compare(a.id, b.id) })
	d.order = make([]int32, len(keep))
	for k, e := range keep {
		d.order[k] = e.i
	}
	if len(preempted) > 0 {
		slices.Sort(preempted)
		what := "goroutines (%s) were asynchronously preempted: the tracer's stacks end at runtime.asyncPreempt, so their own frames are missing (marked elided)"
		if len(preempted) == 1 {
			what = "goroutine (%s) was asynchronously preempted: the tracer's stack ends at runtime.asyncPreempt, so its own frames are missing (marked elided)"
		}
		d.notes = append(d.notes, &stack.ParseError{Offset: d.in.BytesRead(), Msg: fmt.Sprintf("%d "+what, len(preempted), idList(preempted, 10))})
	}
}

// routine builds the Routine of g.
func (d *traceDecoder) routine(g *traceG) *stack.Routine {
	if len(d.slab) == 0 {
		d.slab = make([]stack.Routine, min(routineSlab, len(d.order)-d.next+1))
	}
	r := &d.slab[0]
	d.slab = d.slab[1:]
	*r = stack.Routine{ID: g.id, Count: 1, ParentID: g.parent, CreatedBy: g.createdBy, Stack: d.stacks.empty.stack}
	inferred := ""
	if g.stack != nil {
		r.Stack, inferred = g.stack.stack, g.stack.reason
	}
	switch g.state {
	case trace.GoWaiting:
		switch {
		case g.reason != "":
			r.State = waitReasonFromTrace(g.reason, inferred)
		case inferred != "" && g.fresh:
			r.State, r.Inferred = inferred, inferredState
		default:
			r.State = "waiting"
		}
		r.Stale = !g.fresh
	case trace.GoRunnable:
		r.State, r.Stale = "runnable", !g.fresh
	case trace.GoRunning:
		r.State, r.Stale = "running", true
	case trace.GoSyscall:
		r.State, r.Stale = "syscall", !g.fresh
	default:
		r.State, r.Stale = strings.ToLower(g.state.String()), true
	}
	return r
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
