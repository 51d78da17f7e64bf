package dumper

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
)

// numGC returns the number of completed GC cycles.
func numGC() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.NumGC
}

// noAutomaticGC turns the collector's pacing off for the test, so that
// only a forced cycle (runtime.GC, the leak profile's) counts in NumGC.
func noAutomaticGC(t *testing.T) {
	old := debug.SetGCPercent(-1)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

// TestLeakModeBoundRefuses lowers the leak-mode bound below this process's
// goroutines: Capture, WriteFile and the endpoint refuse with the count,
// the bound, the expected stall and how to raise the bound, and no GC
// cycle runs (the leak profile's is a GC cycle: NumGC would grow). The
// endpoint's refusal is a 403 that no request parameter gets around.
func TestLeakModeBoundRefuses(t *testing.T) {
	startFixture(t, fixturePerKind)
	noAutomaticGC(t)
	const bound = 5
	before := numGC()

	_, err := Capture(context.Background(), CaptureOptions{Mode: ModeLeak, LeakMaxGoroutines: bound})
	var lbe *LeakBoundError
	if !errors.As(err, &lbe) || !errors.Is(err, ErrLeakBound) {
		t.Fatalf("leak capture with %d goroutines and a bound of %d: err = %v, want a *LeakBoundError", runtime.NumGoroutine(), bound, err)
	}
	if lbe.Bound != bound || lbe.Goroutines <= bound {
		t.Errorf("LeakBoundError %+v, want bound %d and the goroutines counted (%d)", lbe, bound, runtime.NumGoroutine())
	}
	msg := err.Error()
	for _, want := range []string{"leak mode refused", strconv.FormatInt(lbe.Goroutines, 10) + " goroutines", "bound of 5", "stall", "raise the bound", "LeakMaxGoroutines"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not say %q", msg, want)
		}
	}

	file := filepath.Join(t.TempDir(), "leak.txt")
	ferr := WriteFile(context.Background(), file, FileOptions{Capture: CaptureOptions{Mode: ModeLeak, LeakMaxGoroutines: bound}})
	if !errors.Is(ferr, ErrLeakBound) {
		t.Errorf("WriteFile in leak mode above the bound: err = %v, want ErrLeakBound", ferr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("refused WriteFile left %s (%v)", file, err)
	}

	srv := httptest.NewServer(Handler(HandlerOptions{Capture: CaptureOptions{LeakMaxGoroutines: bound}}))
	defer srv.Close()
	for _, query := range []string{"?mode=leak", "?mode=leak&format=json&dedupe=1"} {
		resp, b := get(t, srv.URL+query)
		body := string(b)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "bound of 5") || !strings.Contains(body, "HandlerOptions.Capture.LeakMaxGoroutines") || strings.Contains(body, "--leak-max-goroutines") {
			t.Errorf("GET %s above the bound: %s %q; want 403 naming the bound and the service's option", query, resp.Status, body)
		}
	}
	// A caller cannot lift the owner's bound.
	for _, query := range []string{"?mode=leak&leak_max_goroutines=0", "?mode=leak&leak-max-goroutines=0", "?mode=leak&LeakMaxGoroutines=-1"} {
		if resp, body := get(t, srv.URL+query); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %s %q, want 400 (unknown parameter)", query, resp.Status, body)
		}
	}
	if after := numGC(); after != before {
		t.Errorf("%d GC cycles ran during refused leak captures", after-before)
	}
}

// TestLeakModeBoundOverride takes leak captures the bound allows: no
// bound (negative), a bound above the count, and the default bound (far
// above this test's goroutines). They get past the guard: on Go 1.27 the
// leak cycle runs (NumGC grows) and the capture succeeds, on Go 1.26 it
// fails for want of the profile, not because of the bound.
func TestLeakModeBoundOverride(t *testing.T) {
	startFixture(t, fixturePerKind)
	noAutomaticGC(t)
	haveProfile := pprof.Lookup(LeakProfile) != nil
	for _, bound := range []int{-1, runtime.NumGoroutine() + 1000, 0} {
		before := numGC()
		d, err := Capture(context.Background(), CaptureOptions{Mode: ModeLeak, LeakMaxGoroutines: bound})
		ran := numGC() - before
		switch {
		case errors.Is(err, ErrLeakBound):
			t.Errorf("bound %d: refused: %v", bound, err)
		case !haveProfile && !errors.Is(err, ErrNoLeakProfile):
			t.Errorf("bound %d on %s: err = %v, want ErrNoLeakProfile", bound, runtime.Version(), err)
		case haveProfile && (err != nil || d.Source.Capture.Mode != string(ModeLeak) || ran == 0):
			t.Errorf("bound %d on %s: err = %v, %d GC cycles; want a leak capture after a GC cycle", bound, runtime.Version(), err, ran)
		}
	}
	srv := httptest.NewServer(Handler(HandlerOptions{Capture: CaptureOptions{LeakMaxGoroutines: -1}}))
	defer srv.Close()
	resp, body := get(t, srv.URL+"?mode=leak")
	if want := map[bool]int{true: http.StatusOK, false: http.StatusNotFound}[haveProfile]; resp.StatusCode != want {
		t.Errorf("endpoint without a bound, mode=leak on %s: %s %.200q, want %d", runtime.Version(), resp.Status, body, want)
	}
}

// TestLeakBoundOption resolves the LeakMaxGoroutines option: zero is the
// default bound, negative none.
func TestLeakBoundOption(t *testing.T) {
	for _, tc := range []struct {
		option     int
		goroutines int64
		refused    bool
	}{
		{0, DefaultLeakMaxGoroutines, false},
		{0, DefaultLeakMaxGoroutines + 1, true},
		{-1, 1 << 40, false},
		{100, 100, false},
		{100, 101, true},
	} {
		err := CheckLeakBound(tc.goroutines, tc.option, "")
		if (err != nil) != tc.refused {
			t.Errorf("option %d, %d goroutines: err = %v, want refused %v", tc.option, tc.goroutines, err, tc.refused)
		}
	}
}

// TestLeakStallEstimate words the expected stall from the measured points:
// the measurement below the first point, an interpolation between two,
// "a minute or more" past the last.
func TestLeakStallEstimate(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{500, "up to ~180ms (measured at 10000 goroutines)"},
		{20_000, "roughly 350ms (measured: 180ms at 10000 goroutines, 350ms at 20000)"},
		{30_000, "roughly 970ms (measured: 350ms at 20000 goroutines, 2s at 40000)"},
		{70_000, "roughly 17s (measured: 2s at 40000 goroutines, 1m5s at 100000)"},
		{1_000_000, "a minute or more (1m5s measured at 100000 goroutines, growing faster than the count)"},
	} {
		if got := LeakStallEstimate(tc.n); got != tc.want {
			t.Errorf("LeakStallEstimate(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
