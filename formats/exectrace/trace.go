package exectrace

import (
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/exp/trace"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/tracesnap"
	"github.com/stackdump/stackdump/stack"
)

// Reading a runtime/trace execution trace as a goroutine dump.
//
// Since Go 1.23 the tracer ends every generation (at trace.Stop, at the
// periodic ~1 s advance, in FlightRecorder.WriteTo) by walking every
// goroutine that did nothing during it and recording its status and stack
// (a GoStatusStack event); goroutines that acted during the window are
// described by their own events (GoCreate, GoBlock, GoUnblock, GoStop…).
// Replaying the events with a small state machine per goroutine
// (tracesnap.Builder) gives each one's last state and last stack: a full
// dump taken with a single short stop-the-world (trace.Start's) instead
// of one that lasts as long as runtime.Stack needs to format every
// goroutine. See docs/modes.md.
//
// Traces of version go 1.26 (Go 1.26 and 1.27) are decoded by
// internal/tracesnap, which reads only what a snapshot needs, in the
// order golang.org/x/exp/trace would give; older versions (Go 1.23 and
// 1.25) by golang.org/x/exp/trace itself.

// minTraceVersion is the first trace version whose end-of-generation
// goroutine statuses carry stacks (EvGoStatusStack).
const minTraceVersion = 23

type traceDecoder struct {
	in   *codec.Stream
	opts codec.Options

	b       *tracesnap.Builder
	started bool
	dump    *stack.Dump
	count   int
	next    int
	notes   []*stack.ParseError
	slab    []stack.Routine // routines are allocated routineSlab at a time
}

// routineSlab is how many Routines are allocated together: one allocation
// instead of 256 for the million routines of a big trace.
const routineSlab = 256

// newTraceDecoder returns the decoder of a runtime/trace execution trace.
// The whole trace is replayed by the first nextDump (events are streamed
// generation by generation; memory follows goroutines and distinct
// stacks), which returns one dump of every goroutine at the end of the
// trace.
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
	d.b = tracesnap.NewBuilder(tracesnap.BuildOptions{Table: d.opts.Table, Version: version})
	var n int
	var rerr error
	if version == tracesnap.Version {
		rd, err := tracesnap.NewReader(d.in.R)
		if err != nil {
			return nil, fmt.Errorf("execution trace (go 1.%d): %w", version, err)
		}
		rerr = readSnap(rd, d.b)
		n = rd.EventCount()
	} else {
		rd, err := trace.NewReader(d.in.R)
		if err != nil {
			return nil, fmt.Errorf("execution trace (go 1.%d): %w; a newer stackdump may read it", version, err)
		}
		n, rerr = replayXExp(rd, d.b)
	}
	dump := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTrace}}
	if rerr != nil {
		if n == 0 {
			return nil, fmt.Errorf("execution trace: %w", rerr)
		}
		dump.Truncated = true
		d.notes = append(d.notes, &stack.ParseError{Offset: d.in.BytesRead(), Msg: fmt.Sprintf(
			"execution trace ends early or is corrupt after %d events (%v); goroutines are as of the last event read", n, rerr), Err: rerr})
	}
	if c := d.b.Clock; c != nil {
		dump.Source.CapturedAt = c.Wall.Add(time.Duration(d.b.Last - c.Trace))
	}
	d.count = d.b.Finish()
	for _, pe := range d.b.Notes() {
		pe.Offset = d.in.BytesRead()
		d.notes = append(d.notes, pe)
	}
	dump.Source.Capture = &stack.Capture{
		Mode:       "trace",
		Goroutines: d.count,
		Duration:   time.Duration(d.b.Last - d.b.First),
		Missing:    tracesnap.Missing(),
	}
	d.dump = dump
	return dump, nil
}

func (d *traceDecoder) NextRoutine() (*stack.Routine, error) {
	if d.dump == nil {
		return nil, codec.ErrEndOfDump
	}
	if d.next < d.count {
		if len(d.slab) == 0 {
			d.slab = make([]stack.Routine, min(routineSlab, d.count-d.next))
		}
		r := &d.slab[0]
		d.slab = d.slab[1:]
		d.b.Routine(d.next, r)
		d.next++
		d.dump.Total++
		return r, nil
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
	v, err := tracesnap.ParseHeader(head)
	if err != nil {
		return 0, errors.New("execution trace: no \"go 1.N trace\" header")
	}
	if v < minTraceVersion {
		return v, fmt.Errorf("execution trace from Go 1.%d: traces before Go 1.%d hold no stacks for blocked goroutines; "+
			"take a full dump instead (runtime.Stack, /debug/pprof/goroutine?debug=2, or stackdump's full mode)", v, minTraceVersion)
	}
	return v, nil
}

// readSnap reads a go 1.26 trace into b. A panic of the decoder (a bug:
// its fuzz tests say it has none) is returned as an error.
func readSnap(rd *tracesnap.Reader, b *tracesnap.Builder) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("trace decoder failed: %v", p)
		}
	}()
	return b.ReadAll(rd)
}
