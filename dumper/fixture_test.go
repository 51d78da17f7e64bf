package dumper

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/leakcheck"
	"github.com/stackdump/stackdump/stack"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		// A child of runInChild parks goroutines for good on purpose.
		// (goleak passed it only by panicking on their elided frames,
		// a panic its deferred os.Exit(0) swallowed.)
		os.Exit(m.Run())
	}
	leakcheck.VerifyTestMain(m)
}

// fixtureKind is a set of goroutines parked in one known way, each in its
// own function so that their stacks can be told apart.
type fixtureKind struct {
	fn     string       // function the goroutines are parked in (package dumper)
	states []string     // states they may be in
	labels stack.Labels // labels every one carries; nil for none
	// perGoroutineLabels: each has a distinct label set (i=N), so the
	// goroutine-profile join is ambiguous for their stack.
	perGoroutineLabels bool
}

var fixtureKinds = []fixtureKind{
	{fn: "parkedRecv", states: []string{"chan receive"}},
	{fn: "parkedSelect", states: []string{"select"}},
	{fn: "parkedMutex", states: []string{"sync.Mutex.Lock"}},
	// A sleeper wakes every 100 ms to check for the end of the test, so it
	// may rarely be caught runnable.
	{fn: "parkedSleep", states: []string{"sleep", "runnable", "running"}},
	{fn: "parkedLabeled", states: []string{"chan receive"}, labels: stack.Labels{{Key: "fixture", Value: "labeled"}, {Key: "team", Value: "core"}}},
	{fn: "parkedAmbiguous", states: []string{"chan receive"}, perGoroutineLabels: true},
}

// fixture holds goroutines in known states until stopped.
type fixture struct {
	perKind int
	stop    chan struct{}
	mu      sync.Mutex
	wg      sync.WaitGroup
	stopped bool
}

// startFixture starts perKind goroutines of each fixtureKind and waits
// until they are parked. They are stopped at the end of the test.
func startFixture(t testing.TB, perKind int) *fixture {
	f := &fixture{perKind: perKind, stop: make(chan struct{})}
	f.mu.Lock() // parkedMutex goroutines block on it
	never := make(chan struct{})
	ready := make(chan struct{}, 1024)
	for _, k := range fixtureKinds {
		for i := range perKind {
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				switch {
				case k.labels != nil:
					pprof.Do(context.Background(), labelSet(k.labels), func(context.Context) { parkedLabeled(f.stop, ready) })
				case k.perGoroutineLabels:
					pprof.Do(context.Background(), pprof.Labels("i", strconv.Itoa(i)), func(context.Context) { parkedAmbiguous(f.stop, ready) })
				case k.fn == "parkedRecv":
					parkedRecv(f.stop, ready)
				case k.fn == "parkedSelect":
					parkedSelect(f.stop, never, ready)
				case k.fn == "parkedMutex":
					parkedMutex(&f.mu, ready)
				case k.fn == "parkedSleep":
					parkedSleep(f.stop, ready)
				}
			}()
		}
	}
	for range perKind * len(fixtureKinds) {
		<-ready
	}
	// Give the last ones time to park after signalling.
	waitFixtureParked(t, perKind*len(fixtureKinds))
	t.Cleanup(f.Stop)
	return f
}

// Stop releases every fixture goroutine and waits for them to exit.
func (f *fixture) Stop() {
	if f.stopped {
		return
	}
	f.stopped = true
	close(f.stop)
	f.mu.Unlock()
	f.wg.Wait()
}

func labelSet(ls stack.Labels) pprof.LabelSet {
	var kv []string
	for _, l := range ls {
		kv = append(kv, l.Key, l.Value)
	}
	return pprof.Labels(kv...)
}

// waitFixtureParked waits until n fixture goroutines are off CPU, judged from
// the raw traceback text (not through the code under test).
func waitFixtureParked(t testing.TB, n int) {
	buf := make([]byte, 64<<20)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		text := string(buf[:runtime.Stack(buf, true)])
		parked := 0
		for _, rec := range strings.Split(text, "\n\n") {
			head, _, _ := strings.Cut(rec, "\n")
			if strings.Contains(rec, "dumper.parked") && !strings.Contains(head, "[runnable") && !strings.Contains(head, "[running") {
				parked++
			}
		}
		if parked >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("fixture goroutines did not park within 10s")
}

//go:noinline
func parkedRecv(stop chan struct{}, ready chan<- struct{}) {
	ready <- struct{}{}
	<-stop
}

//go:noinline
func parkedSelect(stop, never chan struct{}, ready chan<- struct{}) {
	ready <- struct{}{}
	select {
	case <-stop:
	case <-never:
	}
}

//go:noinline
func parkedMutex(mu *sync.Mutex, ready chan<- struct{}) {
	ready <- struct{}{}
	mu.Lock()
	mu.Unlock()
}

//go:noinline
func parkedSleep(stop chan struct{}, ready chan<- struct{}) {
	ready <- struct{}{}
	for {
		select {
		case <-stop:
			return
		default:
		}
		time.Sleep(100 * time.Millisecond)
	}
}

//go:noinline
func parkedLabeled(stop chan struct{}, ready chan<- struct{}) {
	ready <- struct{}{}
	<-stop
}

//go:noinline
func parkedAmbiguous(stop chan struct{}, ready chan<- struct{}) {
	ready <- struct{}{}
	<-stop
}

// fixtureFunc returns the fixture function r is parked in, or "".
func fixtureFunc(r *stack.Routine) string {
	for _, f := range r.Frames() {
		if name, ok := strings.CutPrefix(f.Func, "github.com/stackdump/stackdump/dumper.parked"); ok {
			return "parked" + name
		}
	}
	return ""
}

// fixtureRoutines returns d's fixture routines by function.
func fixtureRoutines(d *stack.Dump) map[string][]*stack.Routine {
	m := map[string][]*stack.Routine{}
	for _, r := range d.Routines {
		if fn := fixtureFunc(r); fn != "" {
			m[fn] = append(m[fn], r)
		}
	}
	return m
}

// checkFullFixture asserts that d, a full dump, holds every fixture
// goroutine once with its state, id, labels and creator.
func checkFullFixture(t *testing.T, d *stack.Dump, f *fixture, headerLabels bool) {
	t.Helper()
	byFn := fixtureRoutines(d)
	ids := map[int64]bool{}
	for _, k := range fixtureKinds {
		rs := byFn[k.fn]
		if len(rs) != f.perKind {
			t.Errorf("%s: %d goroutines in the dump, want %d", k.fn, len(rs), f.perKind)
			continue
		}
		seenI := map[string]bool{}
		for _, r := range rs {
			if !slices.Contains(k.states, r.State) {
				t.Errorf("%s: goroutine %d state %q, want one of %q", k.fn, r.ID, r.State, k.states)
			}
			if r.ID <= 0 || ids[r.ID] {
				t.Errorf("%s: goroutine id %d missing or repeated", k.fn, r.ID)
			}
			ids[r.ID] = true
			if r.Count > 1 {
				t.Errorf("%s: goroutine %d has count %d in a full dump", k.fn, r.ID, r.Count)
			}
			if r.CreatedBy == nil || !strings.Contains(r.CreatedBy.Func, "startFixture") {
				t.Errorf("%s: goroutine %d created by %v, want startFixture", k.fn, r.ID, r.CreatedBy)
			}
			switch {
			case k.labels != nil:
				if !slices.Equal(r.Labels, k.labels) {
					t.Errorf("%s: goroutine %d labels %v, want %v", k.fn, r.ID, r.Labels, k.labels)
				}
			case k.perGoroutineLabels && headerLabels:
				v, ok := r.Labels.Get("i")
				if !ok || seenI[v] {
					t.Errorf("%s: goroutine %d labels %v, want a distinct i", k.fn, r.ID, r.Labels)
				}
				seenI[v] = true
			default:
				if r.Labels != nil {
					t.Errorf("%s: goroutine %d labels %v, want none", k.fn, r.ID, r.Labels)
				}
			}
		}
	}
}
