package dumper

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/trace"
	"slices"
	"time"

	"github.com/stackdump/stackdump/formats/exectrace"
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
// when <= 0), then the goroutine profile (debug=0, two short pauses), and
// reads both with package formats, interning into t (a new Table when
// nil): the trace gives the routines, the profile their pprof labels,
// joined by stack. Source.Capture says what it cost: the wall time of the
// recording and the non-GC stop-the-world pauses runtime/metrics saw
// meanwhile. What a trace cannot tell (wait minutes, locked to thread,
// arguments…) is listed in Capture.Missing. See docs/modes.md.
func captureTrace(ctx context.Context, window time.Duration, t *stack.Table) (*stack.Dump, error) {
	rec, err := recordTrace(ctx, window)
	if err != nil {
		return nil, err
	}
	return rec.decode(t)
}

// traceRecording is an execution trace and a goroutine profile of the
// calling process, and what recording them cost.
type traceRecording struct {
	trace      *bytes.Buffer
	labels     *labelIndex // from the goroutine profile; nil when profileErr
	profileErr error
	start      time.Time
	duration   time.Duration // trace.Start to the end of the profile
	traced     time.Duration // trace.Start to the end of trace.Stop
	pauses     stwPauses     // all of them
	tracePause stwPauses     // trace.Start to the end of trace.Stop
	goroutines int           // runtime.NumGoroutine() when it started
}

// recordTrace records an execution trace of window (DefaultTraceWindow
// when <= 0) into memory, then the goroutine profile for the labels.
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
	timer := time.NewTimer(window)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	trace.Stop()
	rec.traced = time.Since(rec.start)
	rec.tracePause = readPauses().since(before)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec.labels, rec.profileErr = profileLabels()
	rec.duration = time.Since(rec.start)
	rec.pauses = readPauses().since(before)
	return rec, nil
}

// decode reads the recording into a dump, interning into t (a new Table
// when nil).
func (rec *traceRecording) decode(t *stack.Table) (*stack.Dump, error) {
	if t == nil {
		t = stack.NewTable()
	}
	dumps, err := stack.ReadAll(exectrace.NewReader(bytes.NewReader(rec.trace.Bytes()), exectrace.ReadOptions{Table: t}))
	if err != nil {
		return nil, fmt.Errorf("read own execution trace: %w", err)
	}
	if len(dumps) != 1 {
		return nil, fmt.Errorf("read own execution trace: %d dumps, want 1", len(dumps))
	}
	d := dumps[0]
	missing := []string(nil)
	if d.Source.Capture != nil {
		missing = slices.Clone(d.Source.Capture.Missing)
	}
	missing = rec.addLabels(d, t, missing)
	d.Source.Runtime = runtime.Version()
	d.Source.CapturedAt = rec.start
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

// addLabels joins the goroutine profile's labels into d and returns
// missing without "labels" when every goroutine's labels are known.
func (rec *traceRecording) addLabels(d *stack.Dump, t *stack.Table, missing []string) []string {
	if rec.profileErr != nil {
		d.Warnings = append(d.Warnings, &stack.ParseError{Msg: "pprof labels unavailable: " + rec.profileErr.Error(), Err: rec.profileErr})
		return missing
	}
	if w := joinTraceLabels(d, rec.labels, t).warning(); w != nil {
		d.Warnings = append(d.Warnings, w)
		return missing
	}
	return slices.DeleteFunc(missing, func(m string) bool { return m == "labels" })
}

// traceBufferSize guesses the trace's size for n goroutines (about 18
// bytes each, plus the fixed part) so the buffer rarely grows while the
// tracer writes into it.
func traceBufferSize(n int) int {
	return 64<<10 + 24*n
}
