package dumper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/trace"
	"slices"
	"time"

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
// It records an execution trace into memory for window (DefaultTraceWindow
// when <= 0) while another goroutine takes the goroutine profile's labels
// (trace_labels.go: two pauses of microseconds, its own walk of the
// goroutines, on the other CPU when there is one), then decodes the trace
// with internal/tracesnap, interning into t (a new Table when nil): the
// trace gives the routines, the profile their pprof labels, joined by
// stack. Source.Capture says what it cost: the wall time of the recording
// and the non-GC stop-the-world pauses runtime/metrics saw meanwhile. What
// a trace cannot tell (wait minutes, locked to thread, arguments…) is
// listed in Capture.Missing. See docs/modes.md.
func captureTrace(ctx context.Context, window time.Duration, t *stack.Table) (*stack.Dump, error) {
	rec, err := recordTrace(ctx, window)
	if err != nil {
		return nil, err
	}
	return rec.decode(t)
}

// traceRecording is an execution trace and the labels of the goroutine
// profile taken beside it, and what recording them cost.
type traceRecording struct {
	trace      *bytes.Buffer
	labels     *traceLabelSet
	start      time.Time
	duration   time.Duration // trace.Start to the end of the later of the trace and the labels
	traced     time.Duration // trace.Start to the end of trace.Stop
	pauses     stwPauses     // all of them
	tracePause stwPauses     // trace.Start to the end of trace.Stop
	goroutines int           // runtime.NumGoroutine() when it started
}

// recordTrace records an execution trace of window (DefaultTraceWindow
// when <= 0) into memory, and the labels of the goroutine profile.
func recordTrace(ctx context.Context, window time.Duration) (*traceRecording, error) {
	if window <= 0 {
		window = DefaultTraceWindow
	}
	select {
	case traceSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-traceSlot }()

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
	// The labels' walk overlaps the window and trace.Stop's walk; its
	// goroutine is created inside the window, so the trace knows it by its
	// creator and leaves it out of the dump.
	labels := spawnLabelSnapshot()
	timer := time.NewTimer(window)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	trace.Stop()
	rec.traced = time.Since(rec.start)
	rec.tracePause = readPauses().since(before)
	rec.labels = <-labels
	rec.duration = time.Since(rec.start)
	rec.pauses = readPauses().since(before)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rec, nil
}

// decode reads the recording into a dump, interning into t (a new Table
// when nil).
func (rec *traceRecording) decode(t *stack.Table) (*stack.Dump, error) {
	if t == nil {
		t = stack.NewTable()
	}
	rd, err := tracesnap.NewReaderBytes(rec.trace.Bytes())
	if errors.Is(err, tracesnap.ErrVersion) {
		return nil, fmt.Errorf("read own execution trace: %w: %s writes a trace format this stackdump does not read; a newer stackdump does", err, runtime.Version())
	}
	if err != nil {
		return nil, fmt.Errorf("read own execution trace: %w", err)
	}
	b := tracesnap.NewBuilder(tracesnap.BuildOptions{Table: t, Version: tracesnap.Version, HideCreatedBy: labelSpawner})
	if err := b.ReadAll(rd); err != nil {
		return nil, fmt.Errorf("read own execution trace: %w", err)
	}
	n := b.Finish()
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTrace, Runtime: runtime.Version(), CapturedAt: rec.start}}
	d.Warnings = append(d.Warnings, b.Notes()...)
	routines := make([]stack.Routine, n)
	d.Routines = make([]*stack.Routine, n)
	join := rec.labels.joiner(t)
	for i := range routines {
		r := &routines[i]
		b.Routine(i, r)
		join.Apply(r)
		d.Routines[i] = r
	}
	d.Total = int64(n)
	missing := tracesnap.Missing()
	if w := rec.labels.warning(join); w != nil {
		d.Warnings = append(d.Warnings, w)
	} else {
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
	return d, nil
}

// traceBufferSize guesses the trace's size for n goroutines (about 18
// bytes each, plus the fixed part) so the buffer rarely grows while the
// tracer writes into it.
func traceBufferSize(n int) int {
	return 64<<10 + 24*n
}
