package dumper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/trace"
	"slices"
	"time"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/tracesnap"
	"github.com/stackdump/stackdump/stack"
)

// DefaultTraceWindow is how long a trace-mode capture records by default.
// The window only needs to be long enough for trace.Start to take effect:
// the goroutine stacks are written when the trace stops.
const DefaultTraceWindow = time.Millisecond

// traceSlot serialises this package's own trace captures, so that
// concurrent requests queue instead of failing with ErrTracerBusy.
var traceSlot = make(chan struct{}, 1)

// captureTrace takes a trace-mode dump of the calling process: every
// goroutine's id, state and stack, for one stop-the-world pause of tens of
// microseconds whatever the number of goroutines (trace.Start's; trace.Stop
// walks the goroutines one at a time while the program runs).
//
// It records an execution trace into memory for opts.window
// (DefaultTraceWindow when <= 0), then, unless opts.noLabels, takes the
// goroutine profile's labels (trace_labels.go: two pauses of microseconds
// and its own walk of the goroutines) beside trace.Stop's walk
// (trace_stop.go), decodes the trace with internal/tracesnap, interning
// into t (a new Table when nil), and joins the labels by stack.
// Source.Capture says what it cost: the wall time of the recording and
// the non-GC stop-the-world pauses runtime/metrics saw meanwhile. What a
// trace cannot tell (wait minutes, locked to thread, arguments…) is
// listed in Capture.Missing. See docs/modes.md.
//
// Only the two walks run side by side, and trace.Stop's starts after the
// profile's first stop-the-world: its walk is runtime code that a stop
// can seldom interrupt. The decoding and the rest run after both, on the
// calling goroutine, so that the profile's stops never wait for a busy
// goroutine of the capture's: measured at 1M goroutines on the project's
// 2-CPU machine, decoding the trace beside the profile's walk saved 0.2 s
// but its second stop then waited 327–393 µs.
func captureTrace(ctx context.Context, opts traceOptions, t *stack.Table) (*stack.Dump, error) {
	d, s, err := snapshotTrace(ctx, opts, t)
	if err != nil {
		return nil, err
	}
	s.fill(d)
	return d, nil
}

// snapshotTrace is captureTrace without making the routines: d holds the
// metadata, s makes the routines (see traceSnapshot).
func snapshotTrace(ctx context.Context, opts traceOptions, t *stack.Table) (*stack.Dump, *traceSnapshot, error) {
	if t == nil {
		t = stack.NewTable()
	}
	rec, err := recordTrace(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	b, n, err := rec.decodeTrace(t)
	if err != nil {
		return nil, nil, err
	}
	d, s := rec.snapshot(b, n, t)
	return d, s, nil
}

// traceOptions configure a trace-mode capture (from CaptureOptions).
type traceOptions struct {
	window   time.Duration // DefaultTraceWindow when <= 0
	noLabels bool          // skip the goroutine profile
	serial   bool          // the two walks one after the other
	settle   time.Duration // wait before trace.Start (CaptureOptions.traceSettle)
}

// traceRecording is an execution trace and the labels of the goroutine
// profile taken beside its stop, and what recording them cost.
type traceRecording struct {
	trace      *bytes.Buffer
	labels     *traceLabelSet
	start      time.Time
	duration   time.Duration // trace.Start to the end of the labels
	traced     time.Duration // trace.Start to the end of trace.Stop
	pauses     stwPauses     // all of them
	tracePause stwPauses     // trace.Start to the end of trace.Stop
	goroutines int           // runtime.NumGoroutine() when it started
	beside     bool          // the labels' walk ran beside trace.Stop's
}

// recordTrace records an execution trace of opts.window into memory and
// the labels of the goroutine profile beside its stop (unless
// opts.noLabels, or ctx ends during the window).
func recordTrace(ctx context.Context, opts traceOptions) (*traceRecording, error) {
	if !runtimeGo126 {
		return nil, fmt.Errorf("%w; this process runs %s", ErrTraceUnsupported, runtime.Version())
	}
	window := opts.window
	if window <= 0 {
		window = DefaultTraceWindow
	}
	select {
	case traceSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-traceSlot }()

	if opts.settle > 0 {
		settle := time.NewTimer(opts.settle)
		select {
		case <-settle.C:
		case <-ctx.Done():
			settle.Stop()
			return nil, ctx.Err()
		}
	}
	rec := &traceRecording{trace: new(bytes.Buffer), goroutines: runtime.NumGoroutine()}
	rec.trace.Grow(traceBufferSize(rec.goroutines))
	before := readPauses()
	rec.start = time.Now()
	if err := trace.Start(rec.trace); err != nil {
		// trace.Start fails when another trace has the tracer; its error
		// has no sentinel to match, so the tracer is asked instead.
		if trace.IsEnabled() {
			return nil, ErrTracerBusy
		}
		return nil, fmt.Errorf("start execution trace: %w", err)
	}
	timer := time.NewTimer(window)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	switch {
	case ctx.Err() != nil, opts.noLabels:
		trace.Stop()
		rec.noteStopped(before)
		rec.labels = &traceLabelSet{skipped: true}
	default:
		beside := walksBeside(rec.goroutines, opts.serial)
		rec.labels, rec.beside = stopBesideLabels(beside, func() {
			trace.Stop()
			rec.noteStopped(before)
		}, takeTraceLabels)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec.duration = time.Since(rec.start)
	rec.pauses = readPauses().since(before)
	return rec, nil
}

// noteStopped records when the trace stopped and its pauses so far.
func (rec *traceRecording) noteStopped(before *pauseSnapshot) {
	rec.traced = time.Since(rec.start)
	rec.tracePause = readPauses().since(before)
}

// decode reads the recording into a dump with its routines, interning
// into t (a new Table when nil).
func (rec *traceRecording) decode(t *stack.Table) (*stack.Dump, error) {
	if t == nil {
		t = stack.NewTable()
	}
	b, n, err := rec.decodeTrace(t)
	if err != nil {
		return nil, err
	}
	d, s := rec.snapshot(b, n, t)
	s.fill(d)
	return d, nil
}

// decodeTrace replays the trace's events, interning into t, and returns
// how many routines the dump has.
func (rec *traceRecording) decodeTrace(t *stack.Table) (*tracesnap.Builder, int, error) {
	rd, err := tracesnap.NewReaderBytes(rec.trace.Bytes())
	if errors.Is(err, tracesnap.ErrVersion) {
		return nil, 0, fmt.Errorf("read own execution trace: %w: %s writes a trace format this stackdump does not read; a newer stackdump does", err, runtime.Version())
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read own execution trace: %w", err)
	}
	rd.Reserve(rec.goroutines)
	b := tracesnap.NewBuilder(tracesnap.BuildOptions{Table: t, Version: tracesnap.Version, Goroutines: rec.goroutines, OmitCreatedBy: besideLabelsFunc})
	if err := b.ReadAll(rd); err != nil {
		return nil, 0, fmt.Errorf("read own execution trace: %w", err)
	}
	return b, b.Finish(), nil
}

// snapshot joins the labels to the replayed trace b: the dump's metadata
// (what is missing, warnings) and the routines' source. The labels of
// each distinct stack are settled here, so that the metadata written
// before the routines says whether any goroutine's labels are unknown.
func (rec *traceRecording) snapshot(b *tracesnap.Builder, n int, t *stack.Table) (*stack.Dump, *traceSnapshot) {
	s := &traceSnapshot{b: b, n: n, join: rec.labels.joiner(t)}
	for i := range n {
		s.join.settle(b.RoutineStack(i))
	}
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTrace, Runtime: runtime.Version(), CapturedAt: rec.start}, Total: int64(s.n)}
	d.Warnings = append(d.Warnings, b.Notes()...)
	missing := tracesnap.Missing()
	switch w := rec.labels.warning(s.join); {
	case rec.labels.skipped:
		// Left out as asked: they stay missing, without a warning.
	case w != nil:
		d.Warnings = append(d.Warnings, w)
	default:
		missing = slices.DeleteFunc(missing, func(m string) bool { return m == "labels" })
	}
	d.Source.Capture = &stack.Capture{
		Mode:       "trace",
		Goroutines: rec.goroutines,
		Duration:   rec.duration,
		Pause:      rec.pauses.Total,
		Pauses:     rec.pauses.Count,
		Missing:    missing,
	}
	return d, s
}

// traceSnapshot makes the routines of a trace-mode dump from the replayed
// trace, with their labels, one at a time: written as they are made (JSON
// and text), a million of them are never held at once.
type traceSnapshot struct {
	b    *tracesnap.Builder
	join *LabelJoiner
	n    int
}

// routine fills r with the i-th routine.
func (s *traceSnapshot) routine(i int, r *stack.Routine) {
	s.b.Routine(i, r)
	s.join.label(r)
}

// fill makes every routine into d.Routines.
func (s *traceSnapshot) fill(d *stack.Dump) {
	routines := make([]stack.Routine, s.n)
	d.Routines = make([]*stack.Routine, s.n)
	for i := range routines {
		s.routine(i, &routines[i])
		d.Routines[i] = &routines[i]
	}
}

// encode writes d with the snapshot's routines in format f, one Routine
// reused for all of them (the text and JSON encoders keep nothing of a
// routine once written), checking ctx between routines.
func (s *traceSnapshot) encode(ctx context.Context, w io.Writer, f output.Format, d *stack.Dump) error {
	enc, err := newEncoder(w, f, d.Source.Kind)
	if err != nil {
		return err
	}
	if err := enc.BeginDump(d); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	var r stack.Routine
	for i := range s.n {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.routine(i, &r)
		if err := enc.WriteRoutine(&r); err != nil {
			return fmt.Errorf("write %s: %w", f, err)
		}
	}
	if err := enc.EndDump(d); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	return ctx.Err()
}

// traceBufferSize guesses the trace's size for n goroutines (about 18
// bytes each, plus the fixed part) so the buffer rarely grows while the
// tracer writes into it.
func traceBufferSize(n int) int {
	return 64<<10 + 24*n
}
