//go:build go1.26

package dumper

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/stack"
)

func routineFrames(r *stack.Routine) []string {
	var out []string
	for _, f := range r.Frames() {
		out = append(out, f.Func+" "+f.File+":"+strconv.Itoa(f.Line))
	}
	return out
}

// TestCaptureTraceMatchesRuntimeStack parks hundreds of goroutines in
// every blocking state (some 150 frames deep), takes runtime.Stack(all)
// and then a trace-mode capture, and checks that the capture has every
// parked goroutine with the same stack (functions, files, lines) and the
// wait reason the runtime gives it. It runs in a child process because
// sleeping and select {} goroutines cannot be released.
func TestCaptureTraceMatchesRuntimeStack(t *testing.T) {
	if !runInChild(t, "TestCaptureTraceMatchesRuntimeStack") {
		return
	}
	const n = 12 * 30
	newParkingLot(t, n, numParkKinds, 100)
	var text map[int64]*stack.Routine
	for try := 0; ; try++ {
		text = allStacks(t)
		parked, moving := 0, 0
		for _, r := range text {
			if isParked(r) {
				parked++
				if r.State == "runnable" || r.State == "running" {
					moving++
				}
			}
		}
		if parked == n && moving == 0 {
			break
		}
		if try == 100 {
			t.Fatalf("%d of %d goroutines parked, %d still moving", parked, n, moving)
		}
		time.Sleep(10 * time.Millisecond)
	}

	d, err := captureTrace(context.Background(), traceOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[int64]*stack.Routine)
	for _, r := range d.Routines {
		got[r.ID] = r
	}
	states := make(map[string]int)
	elided := 0
	for id, tr := range text {
		if !isParked(tr) {
			continue
		}
		r := got[id]
		if r == nil {
			t.Errorf("goroutine %d [%s] missing from the trace dump", id, tr.State)
			continue
		}
		if r.Stale {
			t.Errorf("goroutine %d [%s]: stale, but it was parked all along", id, tr.State)
			continue
		}
		if r.State != tr.State {
			t.Errorf("goroutine %d: state %q, runtime says %q", id, r.State, tr.State)
		}
		if !slices.Equal(r.Inferred, []string{"state"}) {
			t.Errorf("goroutine %d: Inferred = %v, want [state]", id, r.Inferred)
		}
		states[r.State]++
		gotFrames, wantFrames := routineFrames(r), routineFrames(tr)
		if at := tr.Stack.ElidedAt; tr.Stack.Elided {
			elided++
			if !r.Stack.Elided || r.Stack.ElidedAt != len(gotFrames) {
				t.Errorf("goroutine %d: deep stack not marked elided at its end", id)
			}
			if len(gotFrames) < at {
				t.Errorf("goroutine %d: %d frames, want at least %d", id, len(gotFrames), at)
				continue
			}
			gotFrames, wantFrames = gotFrames[:at], wantFrames[:at]
		}
		if !slices.Equal(gotFrames, wantFrames) {
			t.Errorf("goroutine %d [%s]: trace stack\n\t%s\nwant\n\t%s", id, tr.State,
				strings.Join(gotFrames, "\n\t"), strings.Join(wantFrames, "\n\t"))
		}
	}
	for _, s := range []string{"chan receive", "chan send", "select", "select (no cases)", "sync.Mutex.Lock",
		"sync.RWMutex.RLock", "sync.RWMutex.Lock", "sync.WaitGroup.Wait", "sync.Cond.Wait", "sleep", "IO wait"} {
		if states[s] == 0 {
			t.Errorf("no parked goroutine in state %q; got %v", s, states)
		}
	}
	if elided != 30 {
		t.Errorf("%d deep goroutines compared, want 30", elided)
	}

	c := d.Source.Capture
	if d.Source.Kind != stack.KindGoTrace || d.Source.Runtime != runtime.Version() || d.Source.CapturedAt.IsZero() {
		t.Errorf("Source = %+v", d.Source)
	}
	if c == nil || c.Mode != "trace" || c.Goroutines < n || c.Duration <= 0 || c.Pauses < 1 || c.Pause <= 0 {
		t.Fatalf("Capture = %+v, want mode trace, ≥%d goroutines, a duration and trace.Start's pause", c, n)
	}
	for _, m := range []string{"wait_minutes", "locked", "args", "offset", "created_by", "parent_id"} {
		if !slices.Contains(c.Missing, m) {
			t.Errorf("Capture.Missing = %v lacks %q", c.Missing, m)
		}
	}
	t.Logf("%d goroutines, %d routines, %v, %d pauses totalling ≤%v", c.Goroutines, len(d.Routines), c.Duration, c.Pauses, c.Pause)
}

// TestCaptureTraceFlagsGoroutinesThatMoved wakes goroutines inside the
// trace window: they must all be in the dump, either with a current stack
// (they blocked again, or yielded, inside the window) or flagged stale;
// and the capturing goroutine itself is running with a stale stack.
func TestCaptureTraceFlagsGoroutinesThatMoved(t *testing.T) {
	const n = 40
	wake, reblock := make(chan struct{}), make(chan struct{})
	var stop atomic.Bool
	var wg sync.WaitGroup
	ids := make(chan int64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids <- curGoroutineID()
			<-wake
			if i%2 == 0 {
				<-reblock // blocks again inside the window
				return
			}
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	want := make(map[int64]bool)
	for range n {
		want[<-ids] = true
	}
	time.Sleep(10 * time.Millisecond)
	woke := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for !trace.IsEnabled() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Microsecond)
		}
		close(wake)
		woke <- trace.IsEnabled()
	}()
	self := curGoroutineID()
	d, err := captureTrace(context.Background(), traceOptions{window: 50 * time.Millisecond}, nil)
	stop.Store(true)
	close(reblock)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !<-woke {
		t.Skip("the waker did not run inside the trace window (machine too busy)")
	}
	states := make(map[string]int)
	for _, r := range d.Routines {
		if r.ID == self {
			if r.State != "running" || !r.Stale {
				t.Errorf("capturing goroutine %d: state %q stale %v, want running and stale", r.ID, r.State, r.Stale)
			}
		}
		if !want[r.ID] {
			continue
		}
		delete(want, r.ID)
		states[r.State+map[bool]string{true: " (stale)"}[r.Stale]]++
		switch {
		case r.Stale:
			if r.State != "running" && r.State != "runnable" {
				t.Errorf("goroutine %d: stale in state %q", r.ID, r.State)
			}
		case r.State == "chan receive":
			// Blocked again inside the window: the trace's own reason.
			if len(r.Inferred) != 0 {
				t.Errorf("goroutine %d: reason of an in-window block marked inferred", r.ID)
			}
			fallthrough
		default:
			if len(r.Frames()) == 0 || !strings.Contains(r.Frames()[len(r.Frames())-1].Func, "TestCaptureTraceFlagsGoroutinesThatMoved") {
				t.Errorf("goroutine %d [%s]: current stack %v does not end in the test's closure", r.ID, r.State, routineFrames(r))
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("woken goroutines missing from the dump: %v", want)
	}
	t.Logf("woken goroutines by state: %v", states)
}

func TestCaptureTraceTracerBusy(t *testing.T) {
	var sink strings.Builder
	if err := trace.Start(&sink); err != nil {
		t.Skipf("cannot start a trace here: %v", err)
	}
	defer trace.Stop()
	_, err := captureTrace(context.Background(), traceOptions{}, nil)
	if !errors.Is(err, ErrTracerBusy) {
		t.Fatalf("err = %v, want ErrTracerBusy", err)
	}
	if !strings.Contains(err.Error(), "mode=full") {
		t.Errorf("error %q does not suggest full mode", err)
	}
	// The endpoint answers 503 with Retry-After while the tracer is busy.
	rec := httptest.NewRecorder()
	Handler(HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", "/debug/stackdump?mode=trace", nil))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("mode=trace while tracing: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestCaptureTraceCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for !trace.IsEnabled() {
			time.Sleep(100 * time.Microsecond)
		}
		cancel()
	}()
	start := time.Now()
	_, err := captureTrace(ctx, traceOptions{window: time.Hour}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if trace.IsEnabled() {
		t.Error("trace still running after a canceled capture")
	}
	t.Logf("canceled after %v", time.Since(start))
}

// TestCaptureTraceConcurrent runs captures side by side: they queue for
// the tracer instead of failing.
func TestCaptureTraceConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := captureTrace(context.Background(), traceOptions{}, nil)
			if err == nil && len(d.Routines) == 0 {
				err = errors.New("empty dump")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// curGoroutineID returns the calling goroutine's id, from its traceback header.
func curGoroutineID() int64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s, _, _ = strings.Cut(strings.TrimPrefix(s, "goroutine "), " ")
	id, _ := strconv.ParseInt(s, 10, 64)
	return id
}

// TestCaptureTraceBesideFlightRecorder checks that a running flight
// recorder, which shares the tracer, does not stop trace mode.
func TestCaptureTraceBesideFlightRecorder(t *testing.T) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
	if err := fr.Start(); err != nil {
		t.Skipf("cannot start a flight recorder here: %v", err)
	}
	defer fr.Stop()
	block := make(chan struct{})
	defer close(block)
	go func() { <-block }()
	d, err := captureTrace(context.Background(), traceOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range d.Routines {
		if r.State == "chan receive" && len(r.Frames()) > 0 && strings.Contains(r.Frames()[0].Func, "TestCaptureTraceBesideFlightRecorder") {
			found = true
		}
	}
	if !found {
		t.Errorf("the parked goroutine is not in the dump (%d routines)", len(d.Routines))
	}
}
