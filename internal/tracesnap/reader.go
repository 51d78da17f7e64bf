package tracesnap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Version is the trace format version Reader reads: "go 1.26", written by
// Go 1.26 and Go 1.27.
const Version = 26

// headerLen is the length of a trace's header, "go 1.26 trace\x00\x00\x00".
const headerLen = 16

// ParseHeader returns the version of the trace whose first bytes are head
// ("go 1.N trace\x00\x00\x00"), or an error when head is not a trace
// header.
func ParseHeader(head []byte) (int, error) {
	rest, ok := strings.CutPrefix(string(head), "go 1.")
	num, _, ok2 := strings.Cut(rest, " trace\x00")
	v, err := strconv.Atoi(num)
	if !ok || !ok2 || err != nil || v < 0 {
		return 0, errors.New("not a Go execution trace: no \"go 1.N trace\" header")
	}
	return v, nil
}

// ErrVersion is returned by NewReader for traces of another version than
// Version.
var ErrVersion = errors.New("unsupported trace version")

// GenerationError is the error of a generation that cannot be read: the
// events before it were read, none of it is.
type GenerationError struct {
	Offset int64 // where the generation starts in the trace
	Err    error
}

func (e *GenerationError) Error() string {
	return fmt.Sprintf("execution trace: generation at byte %d: %v", e.Offset, e.Err)
}

func (e *GenerationError) Unwrap() error { return e.Err }

// Reader reads the goroutine transitions of a go 1.26 trace, generation
// by generation (each generation is held in memory while it is read; with
// NewReaderBytes its batches are not copied).
type Reader struct {
	in       input
	gen      *generation
	frontier []*cursor
	cpu      []int64
	order    *ordering
	lastTs   int64
	done     bool
	genErr   error
	raw      rawEvent
	ev       Event
	clock    ClockSnapshot
	// Events counts every event read (x/exp/trace's, of all kinds).
	events int
}

// NewReader returns a Reader of the trace r, after checking its header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(headerLen)
	if err := checkHeader(head); err != nil {
		return nil, err
	}
	br.Discard(headerLen)
	return &Reader{in: input{r: br, off: headerLen}, order: newOrdering()}, nil
}

// NewReaderBytes returns a Reader of the trace b, which must not change
// while it is read.
func NewReaderBytes(b []byte) (*Reader, error) {
	if err := checkHeader(b[:min(len(b), headerLen)]); err != nil {
		return nil, err
	}
	return &Reader{in: input{b: b[headerLen:], off: headerLen}, order: newOrdering()}, nil
}

func checkHeader(head []byte) error {
	v, err := ParseHeader(head)
	if err != nil {
		return err
	}
	if len(head) < headerLen || string(head[headerLen-3:headerLen]) != "\x00\x00\x00" {
		return errors.New("not a Go execution trace: bad header")
	}
	if v != Version {
		return fmt.Errorf("%w go 1.%d (this reader reads go 1.%d)", ErrVersion, v, Version)
	}
	return nil
}

// Reserve sizes the reader's goroutine table for about n goroutines
// (runtime.NumGoroutine when the trace was taken), so that it is not grown
// while a million are read.
func (r *Reader) Reserve(n int) {
	if n > 0 {
		r.order.gs.reserve(n + n/8 + 64)
	}
}

// Offset returns how many bytes of the trace were read.
func (r *Reader) Offset() int64 { return r.in.off }

// EventCount returns how many events were read so far, of every kind
// (x/exp/trace counts the same).
func (r *Reader) EventCount() int { return r.events }

// Next returns the next goroutine transition or generation boundary, or
// io.EOF after the last. The Event is reused by the next call.
func (r *Reader) Next() (*Event, error) {
	for {
		if err := r.nextRaw(&r.raw); err != nil {
			return nil, err
		}
		r.events++
		if err := r.raw.checkIDs(); err != nil {
			return nil, err
		}
		// Times strictly increase, as x/exp/trace makes them.
		if r.raw.time <= r.lastTs {
			r.raw.time = r.lastTs + 1
		}
		r.lastTs = r.raw.time
		if r.convert(&r.raw, &r.ev) {
			return &r.ev, nil
		}
	}
}

const evSyncMark = 255 // a generation boundary in rawEvent.typ
const evCPUSampleMark = 254

// nextRaw is x/exp/trace's ReadEvent up to the conversion: the next event
// in order, of any kind.
func (r *Reader) nextRaw(e *rawEvent) error {
	if r.done {
		return io.EOF
	}
	if r.order.queue.pop(e) {
		return nil
	}
	if len(r.frontier) == 0 && len(r.cpu) == 0 {
		if r.genErr != nil {
			return r.genErr
		}
		start := r.in.off
		g, err := readGeneration(&r.in)
		if err != nil {
			r.genErr, r.gen = &GenerationError{Offset: start, Err: err}, nil
			*e = rawEvent{typ: evSyncMark, time: r.lastTs}
			return nil
		}
		if g == nil {
			r.gen, r.done = nil, true
			*e = rawEvent{typ: evSyncMark, time: r.lastTs}
			return nil
		}
		return r.install(g, e)
	}
	if len(r.cpu) > 0 && (len(r.frontier) == 0 || r.cpu[0] < r.frontier[0].ev.time) {
		*e = rawEvent{typ: evCPUSampleMark, time: r.cpu[0]}
		r.cpu = r.cpu[1:]
		return nil
	}
	if len(r.frontier) == 0 {
		return errors.New("broken trace: nothing left to order")
	}
	ok, err := r.tryAdvance(0)
	if err != nil {
		return err
	}
	if !ok {
		sortCursors(r.frontier)
		for i := 1; i < len(r.frontier) && !ok; i++ {
			if ok, err = r.tryAdvance(i); err != nil {
				return err
			}
		}
		if !ok {
			return fmt.Errorf("broken trace: no thread's next event can happen (generation %d)", r.gen.gen)
		}
	}
	if !r.order.queue.pop(e) {
		return errors.New("internal error: an event advanced but none was queued")
	}
	return nil
}

// install starts reading generation g and returns its sync event.
func (r *Reader) install(g *generation, e *rawEvent) error {
	r.gen = g
	r.cpu = g.cpu
	for _, m := range g.ms {
		c := &cursor{m: m, batches: g.batches[m]}
		ok, err := c.next(g.tables)
		if err != nil {
			return err
		}
		if ok {
			r.frontier = heapInsert(r.frontier, c)
		}
	}
	*e = rawEvent{typ: evSyncMark, time: g.nsOf(g.minTs), t: g.tables}
	return nil
}

func (r *Reader) tryAdvance(i int) (bool, error) {
	c := r.frontier[i]
	if c.ms == nil && c.m != noThread {
		c.ms = r.order.thread(c.m)
	}
	if ok, err := r.order.advance(&c.ev, c.ms, c.m, r.gen.gen); !ok || err != nil {
		return ok, err
	}
	ok, err := c.next(r.gen.tables)
	if err != nil {
		return false, err
	}
	if ok {
		heapUpdate(r.frontier, i)
	} else {
		r.frontier = heapRemove(r.frontier, i)
	}
	return true, nil
}

// checkIDs fails for an event naming a stack or string its generation
// does not have (x/exp/trace's validateTableIDs).
func (e *rawEvent) checkIDs() error {
	if e.typ >= numSpecs {
		return nil
	}
	s := &specs[e.typ]
	for _, a := range [2]uint8{s.stack, s.stack2} {
		if a != 0 {
			if _, ok := e.t.stacks.index(e.args[a-1]); !ok {
				return fmt.Errorf("event type %d names stack %d, which the trace does not have", e.typ, e.args[a-1])
			}
		}
	}
	for _, a := range s.strings {
		if a != 0 {
			if _, ok := e.t.strings.index(e.args[a-1]); !ok {
				return fmt.Errorf("event type %d names string %d, which the trace does not have", e.typ, e.args[a-1])
			}
		}
	}
	return nil
}

// stackArg returns the stack named by argument a (1-based) of e; none for
// id 0 unless present is set.
func (e *rawEvent) stackArg(a uint8, present bool) Stack {
	id := e.args[a-1]
	if id == 0 && !present {
		return Stack{}
	}
	i, _ := e.t.stacks.index(id)
	return Stack{src: e.t, index: i}
}

// convert fills out from e when e is a goroutine transition or a
// generation boundary, and reports whether it was.
func (r *Reader) convert(e *rawEvent, out *Event) bool {
	*out = Event{Time: e.time, EventG: e.ctx.G}
	switch e.typ {
	case evSyncMark:
		out.Kind = KindSync
		if e.t != nil {
			r.clock = e.t.clock
			r.clock.Trace = e.t.nsOf(e.t.snapTime)
			out.Clock = &r.clock
		}
		return true
	case evGoCreate, evGoCreateBlocked:
		out.G, out.From, out.To = int64(e.args[0]), GoNotExist, GoRunnable
		if e.typ == evGoCreateBlocked {
			out.To = GoWaiting
		}
		out.Stack = e.stackArg(2, true)
	case evGoCreateSyscall:
		out.G, out.From, out.To = int64(e.args[0]), GoNotExist, GoSyscall
	case evGoStart:
		out.G, out.From, out.To = int64(e.args[0]), GoRunnable, GoRunning
	case evGoDestroy:
		out.G, out.From, out.To = e.ctx.G, GoRunning, GoNotExist
	case evGoDestroySyscall:
		out.G, out.From, out.To = e.ctx.G, GoSyscall, GoNotExist
	case evGoStop, evGoBlock:
		out.G, out.From, out.To = e.ctx.G, GoRunning, GoRunnable
		if e.typ == evGoBlock {
			out.To = GoWaiting
		}
		out.Reason, _ = e.t.strings.get(e.args[0])
		out.Stack = e.stackArg(2, false)
	case evGoUnblock, evGoSwitch, evGoSwitchDestroy:
		out.G, out.From, out.To = int64(e.args[0]), GoWaiting, GoRunnable
	case evGoSyscallBegin:
		out.G, out.From, out.To = e.ctx.G, GoRunning, GoSyscall
		out.Stack = e.stackArg(2, false)
	case evGoSyscallEnd:
		out.G, out.From, out.To = e.ctx.G, GoSyscall, GoRunning
	case evGoSyscallEndBlocked:
		out.G, out.From, out.To = e.ctx.G, GoSyscall, GoRunnable
	case evGoStatus, evGoStatusStack:
		out.G = int64(e.args[0])
		out.From = GoState(e.args[2] >> 32)
		if st := e.args[2] & math.MaxUint32; st < numWireGoStatus {
			out.To = statusState[st]
		}
		if e.typ == evGoStatusStack {
			out.Stack = e.stackArg(4, false)
		}
	default:
		return false
	}
	out.Kind = KindTransition
	if s := &specs[e.typ]; s.stack != 0 {
		out.EventStack = e.stackArg(s.stack, false)
	}
	return true
}
