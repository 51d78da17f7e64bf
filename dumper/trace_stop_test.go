package dumper

import (
	"context"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/tracesnap"
	"github.com/stackdump/stackdump/stack"
)

// needTwoPs skips a test of the side-by-side walks where they never run
// side by side.
func needTwoPs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("GOMAXPROCS < 2: the two walks run one after the other")
	}
}

// TestStopBesideLabelsWaitsForFirstStop gives stopBesideLabels a labels
// walk that stops the world (runtime.ReadMemStats) only after a while,
// then waits for the trace to stop: stop must come after that first
// stop-the-world and before the walk ends.
func TestStopBesideLabelsWaitsForFirstStop(t *testing.T) {
	needTwoPs(t)
	var aboutToStop, stopped atomic.Bool
	stoppedCh := make(chan struct{})
	take := func() *traceLabelSet {
		time.Sleep(20 * time.Millisecond) // no pause yet: stop must wait
		aboutToStop.Store(true)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms) // a stop-the-world, as the walk's first
		select {
		case <-stoppedCh: // the trace stops while the walk runs
		case <-time.After(10 * time.Second):
			t.Error("the trace was not stopped while the labels' walk ran")
		}
		return &traceLabelSet{skipped: true}
	}
	stop := func() {
		if !aboutToStop.Load() {
			t.Error("the trace was stopped before the labels' walk stopped the world")
		}
		stopped.Store(true)
		close(stoppedCh)
	}
	ls, beside := stopBesideLabels(true, stop, take)
	if !stopped.Load() || ls == nil || !ls.skipped {
		t.Fatalf("stopped %v, labels %+v: want the trace stopped and take's labels", stopped.Load(), ls)
	}
	if !beside {
		t.Error("stopBesideLabels says the walks did not run side by side")
	}
}

// TestStopBesideLabelsInTurn covers the cases that run one after the
// other: not beside (stop, then take, on the calling goroutine), a take
// that returns without stopping the world, and one that has not stopped
// it within labelsStartWait (take, then stop).
func TestStopBesideLabelsInTurn(t *testing.T) {
	var order []string
	var mu sync.Mutex
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	run := func(beside bool, take func()) []string {
		order = nil
		_, beside = stopBesideLabels(beside, func() { note("stop") }, func() *traceLabelSet {
			take()
			note("take")
			return &traceLabelSet{}
		})
		if beside {
			t.Errorf("%v: says side by side", order)
		}
		return order
	}
	if got := run(false, func() {}); len(got) != 2 || got[0] != "stop" {
		t.Errorf("not beside: %v, want stop then take", got)
	}
	if got := run(true, func() {}); len(got) != 2 || got[0] != "take" {
		t.Errorf("take without a pause: %v, want take then stop", got)
	}
	if got := run(true, func() { time.Sleep(labelsStartWait + 50*time.Millisecond) }); len(got) != 2 || got[0] != "take" {
		t.Errorf("take that does not begin in time: %v, want take then stop", got)
	}
}

// TestWalksBeside checks when the two walks run side by side.
func TestWalksBeside(t *testing.T) {
	twoPs := runtime.GOMAXPROCS(0) >= 2
	for _, c := range []struct {
		goroutines int
		serial     bool
		want       bool
	}{
		{labelsBesideMin, false, twoPs},
		{labelsBesideMin - 1, false, false},
		{1_000_000, true, false},
	} {
		if got := walksBeside(c.goroutines, c.serial); got != c.want {
			t.Errorf("walksBeside(%d, serial %v) = %v, want %v", c.goroutines, c.serial, got, c.want)
		}
	}
}

// TestCaptureOptionsTraceOptions checks that the options of trace mode
// reach it.
func TestCaptureOptionsTraceOptions(t *testing.T) {
	o := CaptureOptions{Mode: ModeTrace, TraceWindow: 3 * time.Millisecond, NoLabels: true, SerialWalks: true, traceSettle: time.Millisecond}
	if got, want := o.traceOptions(), (traceOptions{window: 3 * time.Millisecond, noLabels: true, serial: true, settle: time.Millisecond}); got != want {
		t.Errorf("traceOptions() = %+v, want %+v", got, want)
	}
	if got := (CaptureOptions{}).traceOptions(); got != (traceOptions{}) {
		t.Errorf("zero CaptureOptions: traceOptions() = %+v", got)
	}
}

// TestHandlerCaptureOptions checks what a request's capture is given: the
// handler's options, the request's mode and window, and the wait that lets
// the request's own goroutines park before trace.Start.
func TestHandlerCaptureOptions(t *testing.T) {
	h := &dumpHandler{opts: HandlerOptions{Capture: CaptureOptions{SerialWalks: true, TraceWindow: time.Second}}}
	o := h.captureOptions(dumpRequest{mode: ModeTrace, window: 5 * time.Millisecond})
	if o.Mode != ModeTrace || o.TraceWindow != 5*time.Millisecond || !o.SerialWalks || o.leakOverride != handlerLeakOverride {
		t.Errorf("captureOptions = %+v", o)
	}
	if got := o.traceOptions().settle; got != handlerTraceSettle || got <= 0 {
		t.Errorf("trace mode's settle = %v, want %v", got, handlerTraceSettle)
	}
	if o := h.captureOptions(dumpRequest{mode: ModeFull}); o.TraceWindow != time.Second {
		t.Errorf("no window= in the request: TraceWindow %v, want the handler's 1s", o.TraceWindow)
	}
}

// TestCaptureTraceLabelsBesideStop captures a process with enough parked
// goroutines for the two walks to run side by side: the labels must all
// be joined, and the goroutine that took them beside trace.Stop must be
// in the trace but not in the dump.
func TestCaptureTraceLabelsBesideStop(t *testing.T) {
	needGo126(t, "trace mode")
	needTwoPs(t)
	defer func(n int) { labelsBesideMin = n }(labelsBesideMin)
	labelsBesideMin = 10_000 // not the 100k of a real capture: a test's goroutines
	var wg sync.WaitGroup
	chA, chB := make(chan struct{}), make(chan struct{})
	startLabelled(&wg, 1000, []string{"tenant", "a"}, labelledParkA, chA)
	startLabelled(&wg, labelsBesideMin, nil, labelledParkB, chB)
	defer func() {
		close(chA)
		close(chB)
		wg.Wait()
	}()
	waitParked(t, 1000+labelsBesideMin, "labelledPark")

	rec, err := recordTrace(context.Background(), traceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.beside {
		t.Fatalf("%d goroutines: the labels were not taken beside trace.Stop", rec.goroutines)
	}
	serial, err := recordTrace(context.Background(), traceOptions{serial: true})
	if err != nil {
		t.Fatal(err)
	}
	if serial.beside {
		t.Errorf("SerialWalks: the labels were taken beside trace.Stop")
	}
	d, err := rec.decode(nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := labelCounts(d)
	if counts["labelledParkA tenant=a"] != 1000 || counts["labelledParkB "] != labelsBesideMin {
		t.Errorf("labels joined: %v, want 1000 labelledParkA with tenant=a and %d labelledParkB without", counts, labelsBesideMin)
	}
	for _, r := range d.Routines {
		if r.CreatedBy != nil && r.CreatedBy.Func == besideLabelsFunc {
			t.Errorf("goroutine %d, created by %s, is the capture's own", r.ID, r.CreatedBy.Func)
		}
	}
	// The trace itself has that goroutine, unless it ended before the
	// tracer's walk did: without the omission it would be in the dump.
	rd, err := tracesnap.NewReaderBytes(rec.trace.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b := tracesnap.NewBuilder(tracesnap.BuildOptions{Table: stack.NewTable(), Version: tracesnap.Version})
	if err := b.ReadAll(rd); err != nil {
		t.Fatal(err)
	}
	helpers := 0
	var r stack.Routine
	for i := range b.Finish() {
		b.Routine(i, &r)
		if r.CreatedBy != nil && r.CreatedBy.Func == besideLabelsFunc {
			helpers++
		}
	}
	switch helpers {
	case 0:
		t.Logf("the labels' goroutine ended before the tracer's walk (%v of trace, %v in all)", rec.traced, rec.duration)
	case 1:
	default:
		t.Errorf("%d goroutines created by %s in the trace, want 1", helpers, besideLabelsFunc)
	}
}

// TestBesideLabelsFunc checks that besideLabelsFunc names the function
// that creates the labels' goroutine.
func TestBesideLabelsFunc(t *testing.T) {
	if got := runtime.FuncForPC(reflect.ValueOf(stopBesideLabels).Pointer()).Name(); got != besideLabelsFunc {
		t.Errorf("stopBesideLabels is %q, besideLabelsFunc says %q", got, besideLabelsFunc)
	}
}
