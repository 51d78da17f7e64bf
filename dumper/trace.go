package dumper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
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
// It records an execution trace into memory for window (DefaultTraceWindow
// when <= 0), then has another goroutine take the goroutine profile's
// labels (trace_labels.go: two pauses of microseconds and its own walk of
// the goroutines) while it decodes the trace with internal/tracesnap,
// interning into t (a new Table when nil), then joins the labels by
// stack.
//
// The labels' walk comes after trace.Stop's, not beside it. Both walks
// visit the goroutines in the same order, and both profile stops must not
// meet a busy CPU of the capture's: stopping the world takes 30–80 µs on
// the project's 2-CPU machine while the capture's other goroutines are
// idle, and 115 µs to 5 ms when one of them must be stopped too. Measured
// at 300k and 1M goroutines: started behind the trace's walk, the
// profile's first stop has to stop the CPU running it; started ahead of
// it, the faster trace walk catches up and the two crawl together over the
// same goroutines (its 0.6 s became 1.25–3.4 s at 1M, spinning). So: the
// trace, then the profile, its first stop taken while this goroutine
// waits idle, the trace decoded beside its walk (done long before the
// walk ends), and its second stop taken while this goroutine waits again.
func captureTrace(ctx context.Context, window time.Duration, t *stack.Table) (*stack.Dump, error) {
	d, s, err := snapshotTrace(ctx, window, t)
	if err != nil {
		return nil, err
	}
	s.fill(d)
	return d, nil
}

// snapshotTrace is captureTrace without making the routines: d holds the
// metadata, s makes the routines (see traceSnapshot).
func snapshotTrace(ctx context.Context, window time.Duration, t *stack.Table) (*stack.Dump, *traceSnapshot, error) {
	if t == nil {
		t = stack.NewTable()
	}
	rec, err := recordTrace(ctx, window)
	if err != nil {
		return nil, nil, err
	}
	rec.awaitProfileStart()
	b, n, err := rec.decodeTrace(t)
	rec.waitLabels()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, err
	}
	d, s := rec.snapshot(b, n, t)
	return d, s, nil
}

// traceRecording is an execution trace and the labels of the goroutine
// profile taken beside it, and what recording them cost.
type traceRecording struct {
	trace     *bytes.Buffer
	pending   <-chan *traceLabelSet // until waitLabels
	labels    *traceLabelSet
	holdsSlot bool // traceSlot is this recording's until released
	// pausesAtLabels is the count of non-GC pauses when the labels'
	// goroutine was let go: it has made its first stop when it rises.
	pausesAtLabels uint64
	start          time.Time
	before         *pauseSnapshot
	duration       time.Duration // trace.Start to the end of the later of the trace and the labels
	traced         time.Duration // trace.Start to the end of trace.Stop
	pauses         stwPauses     // all of them
	tracePause     stwPauses     // trace.Start to the end of trace.Stop
	goroutines     int           // runtime.NumGoroutine() when it started
}

// recordTrace records an execution trace of window (DefaultTraceWindow
// when <= 0) into memory, and starts taking the goroutine profile's
// labels: waitLabels waits for them.
func recordTrace(ctx context.Context, window time.Duration) (*traceRecording, error) {
	if window <= 0 {
		window = DefaultTraceWindow
	}
	select {
	case traceSlot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// The slot is held until the labels are in (gotLabels): a capture's
	// walks do not overlap another's.
	rec := &traceRecording{trace: new(bytes.Buffer), goroutines: runtime.NumGoroutine(), holdsSlot: true}
	defer func() {
		if rec.pending == nil {
			rec.releaseSlot()
		}
	}()
	rec.trace.Grow(traceBufferSize(rec.goroutines))
	rec.before = readPauses()
	rec.start = time.Now()
	if err := trace.Start(rec.trace); err != nil {
		// trace.Start fails when another trace has the tracer; its error
		// has no sentinel to match, so the tracer is asked instead.
		if trace.IsEnabled() {
			return nil, ErrTracerBusy
		}
		return nil, fmt.Errorf("start execution trace: %w", err)
	}
	traced := make(chan struct{})
	rec.pending = spawnLabelSnapshot(traced)
	timer := time.NewTimer(window)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	trace.Stop()
	rec.traced = time.Since(rec.start)
	afterTrace := readPauses()
	rec.tracePause = afterTrace.since(rec.before)
	rec.pausesAtLabels = afterTrace.count()
	close(traced)
	if err := ctx.Err(); err != nil {
		rec.waitLabels() // the walk is bounded; leave no goroutine behind
		return nil, err
	}
	return rec, nil
}

// waitLabels waits for the labels and measures the recording's duration
// and pauses, both ending there.
func (rec *traceRecording) waitLabels() {
	if rec.pending != nil {
		rec.gotLabels(<-rec.pending)
	}
}

func (rec *traceRecording) gotLabels(ls *traceLabelSet) {
	rec.labels = ls
	rec.pending = nil
	rec.releaseSlot()
	rec.duration = time.Since(rec.start)
	rec.pauses = readPauses().since(rec.before)
}

func (rec *traceRecording) releaseSlot() {
	if rec.holdsSlot {
		rec.holdsSlot = false
		<-traceSlot
	}
}

// profileStartWait bounds how long awaitProfileStart waits.
const profileStartWait = 50 * time.Millisecond

// awaitProfileStart returns once the labels' goroutine profile has made
// its first stop-the-world (the non-GC pause count rose; another stop of
// the program's can be taken for it, at worst costing the profile's stop
// some microseconds), once the labels are in, or after
// profileStartWait. It polls runtime/metrics every 50 µs, sleeping in
// between: this goroutine is idle while the world stops.
func (rec *traceRecording) awaitProfileStart() {
	tick := time.NewTicker(50 * time.Microsecond)
	defer tick.Stop()
	deadline := time.Now().Add(profileStartWait)
	for rec.pending != nil && readPauses().count() <= rec.pausesAtLabels && time.Now().Before(deadline) {
		select {
		case ls := <-rec.pending:
			rec.gotLabels(ls)
		case <-tick.C:
		}
	}
}

// decode reads the recording into a dump with its routines, interning
// into t (a new Table when nil).
func (rec *traceRecording) decode(t *stack.Table) (*stack.Dump, error) {
	if t == nil {
		t = stack.NewTable()
	}
	rec.awaitProfileStart()
	b, n, err := rec.decodeTrace(t)
	rec.waitLabels()
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
	b := tracesnap.NewBuilder(tracesnap.BuildOptions{Table: t, Version: tracesnap.Version, Goroutines: rec.goroutines, HideCreatedBy: labelSpawner})
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
	if w := rec.labels.warning(s.join); w != nil {
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

// count returns how many non-GC pauses the histogram holds.
func (s *pauseSnapshot) count() uint64 {
	v := s.samples[0].Value
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range v.Float64Histogram().Counts {
		n += c
	}
	return n
}

// traceBufferSize guesses the trace's size for n goroutines (about 18
// bytes each, plus the fixed part) so the buffer rarely grows while the
// tracer writes into it.
func traceBufferSize(n int) int {
	return 64<<10 + 24*n
}
