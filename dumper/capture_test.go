package dumper

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

const fixturePerKind = 100 // 600 goroutines in all

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
	}{{"", ModeFull}, {"full", ModeFull}, {"GROUPED", ModeGrouped}, {"trace", ModeTrace}} {
		got, err := ParseMode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	_, err := ParseMode("fast")
	if err == nil || !strings.Contains(err.Error(), "full") || !strings.Contains(err.Error(), "grouped") || !strings.Contains(err.Error(), "trace") {
		t.Errorf("ParseMode(fast) error %v, want one listing the modes", err)
	}
}

// TestCaptureFull captures the fixture with default options: labels are
// printed by the runtime (tracebacklabels turned on for the pass), so even
// the goroutines sharing a stack with distinct label sets get theirs, and
// the process's GODEBUG is as it was.
func TestCaptureFull(t *testing.T) {
	f := startFixture(t, fixturePerKind)
	env, had := os.LookupEnv("GODEBUG")
	d, err := Capture(context.Background(), CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if env2, had2 := os.LookupEnv("GODEBUG"); env2 != env || had2 != had {
		t.Errorf("GODEBUG after the capture %q (set %v), before %q (set %v)", env2, had2, env, had)
	}
	checkFullFixture(t, d, f, runtimeGo126)
	checkCaptureMeta(t, d, ModeFull)
	if d.Truncated {
		t.Error("full capture marked truncated")
	}
	if c := d.Source.Capture; c.Pauses < 1 || c.Pause <= 0 {
		t.Errorf("full capture recorded %d pauses of %v, want at least one", c.Pauses, c.Pause)
	}
	for _, w := range d.Warnings {
		// Before Go 1.26 the runtime cannot print labels: those of the
		// stack with one label set per goroutine are left off, with a
		// warning that says so.
		if runtimeGo126 || !strings.Contains(w.Msg, "labels left off") || !strings.Contains(w.Msg, "Go 1.26 or newer") {
			t.Errorf("warning: %v", w)
		}
	}
	if int64(len(d.Routines)) != d.Total {
		t.Errorf("Total %d, %d routines", d.Total, len(d.Routines))
	}
	if tracebackPrintsLabels() && !strings.Contains(env, "tracebacklabels=1") {
		t.Error("tracebacklabels left on after the capture")
	}
}

// TestCaptureFullJoinedLabels respects GODEBUG=tracebacklabels=0: labels
// are joined from the goroutine profile, and the stack with one label set
// per goroutine gets none and a warning that says why.
func TestCaptureFullJoinedLabels(t *testing.T) {
	t.Setenv("GODEBUG", "tracebacklabels=0")
	f := startFixture(t, fixturePerKind)
	d, err := Capture(context.Background(), CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("GODEBUG"); got != "tracebacklabels=0" {
		t.Errorf("GODEBUG changed to %q", got)
	}
	checkFullFixture(t, d, f, false)
	var warned bool
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "labels left off") {
			warned = true
			if !strings.Contains(w.Msg, "100 goroutines") {
				t.Errorf("ambiguity warning %q, want it to count the 100 parkedAmbiguous goroutines", w.Msg)
			}
		}
	}
	if !warned {
		t.Errorf("no warning about ambiguous labels; warnings: %v", d.Warnings)
	}
}

// TestCaptureFullHeaderLabels checks that labels the runtime prints anyway
// (GODEBUG=tracebacklabels=1 set by the user) are taken as they are.
func TestCaptureFullHeaderLabels(t *testing.T) {
	t.Setenv("GODEBUG", "tracebacklabels=1")
	if !tracebackPrintsLabels() {
		t.Skipf("%s does not print labels with GODEBUG=tracebacklabels=1", runtime.Version())
	}
	f := startFixture(t, fixturePerKind)
	d, err := Capture(context.Background(), CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFullFixture(t, d, f, true)
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "labels") {
			t.Errorf("unexpected warning with header labels: %v", w)
		}
	}
}

func TestCaptureFullNoLabels(t *testing.T) {
	startFixture(t, 10)
	d, err := Capture(context.Background(), CaptureOptions{NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	for fn, rs := range fixtureRoutines(d) {
		for _, r := range rs {
			if r.Labels != nil {
				t.Errorf("%s: labels %v with NoLabels", fn, r.Labels)
			}
		}
	}
}

// TestCaptureFullRetry starts from a per-goroutine estimate far too small,
// so the first pass does not fit: the capture must retry and be complete.
func TestCaptureFullRetry(t *testing.T) {
	f := startFixture(t, fixturePerKind)
	stackSizer.Lock()
	saved := stackSizer.perG
	stackSizer.perG = 1
	stackSizer.Unlock()
	stackPool.Lock()
	stackPool.buf = nil
	stackPool.Unlock()
	defer func() {
		stackSizer.Lock()
		stackSizer.perG = saved
		stackSizer.Unlock()
	}()
	d, err := Capture(context.Background(), CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFullFixture(t, d, f, runtimeGo126)
	if d.Truncated {
		t.Error("retried capture marked truncated")
	}
	if c := d.Source.Capture; c.Pauses < 2 {
		t.Errorf("capture from a 1-byte estimate took %d pauses, want a retry", c.Pauses)
	}
}

// TestCaptureFullMaxBytes checks that a capture cut by MaxBytes says so.
func TestCaptureFullMaxBytes(t *testing.T) {
	startFixture(t, fixturePerKind)
	d, err := Capture(context.Background(), CaptureOptions{MaxBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Truncated {
		t.Fatal("capture cut at 64 KiB not marked truncated")
	}
	if n := len(fixtureRoutines(d)); n == 0 || len(d.Routines) >= 6*fixturePerKind {
		t.Errorf("cut capture holds %d routines", len(d.Routines))
	}
	if !slices.ContainsFunc(d.Warnings, func(w *stack.ParseError) bool { return strings.Contains(w.Msg, "MaxBytes") }) {
		t.Errorf("no warning naming MaxBytes: %v", d.Warnings)
	}
}

func TestCaptureGrouped(t *testing.T) {
	startFixture(t, fixturePerKind)
	d, err := Capture(context.Background(), CaptureOptions{Mode: ModeGrouped})
	if err != nil {
		t.Fatal(err)
	}
	checkCaptureMeta(t, d, ModeGrouped)
	if !slices.Contains(d.Source.Capture.Missing, "id") || !slices.Contains(d.Source.Capture.Missing, "state") {
		t.Errorf("grouped Missing = %v, want id and state", d.Source.Capture.Missing)
	}
	byFn := fixtureRoutines(d)
	for _, k := range fixtureKinds {
		var total int64
		labelSets := map[string]bool{}
		for _, r := range byFn[k.fn] {
			total += r.Count
			if r.ID != 0 {
				t.Errorf("%s: grouped record has id %d", k.fn, r.ID)
			}
			labelSets[labelsKey(r.Labels)] = true
			if k.labels != nil && !slices.Equal(r.Labels, k.labels) {
				t.Errorf("%s: labels %v, want %v", k.fn, r.Labels, k.labels)
			}
		}
		if total != fixturePerKind {
			t.Errorf("%s: grouped counts sum to %d, want %d", k.fn, total, fixturePerKind)
		}
		if k.perGoroutineLabels && len(labelSets) != fixturePerKind {
			t.Errorf("%s: %d label sets, want %d", k.fn, len(labelSets), fixturePerKind)
		}
		if k.fn == "parkedRecv" && len(byFn[k.fn]) != 1 {
			t.Errorf("%s: %d records, want one with count %d", k.fn, len(byFn[k.fn]), fixturePerKind)
		}
	}
}

func TestCaptureTrace(t *testing.T) {
	needGo126(t, "trace mode")
	f := startFixture(t, 20)
	d, err := Capture(context.Background(), CaptureOptions{Mode: ModeTrace})
	if err != nil {
		if strings.Contains(err.Error(), "not supported yet") {
			t.Skip("trace mode not merged yet")
		}
		t.Fatal(err)
	}
	checkCaptureMeta(t, d, ModeTrace)
	byFn := fixtureRoutines(d)
	for _, k := range fixtureKinds {
		if n := len(byFn[k.fn]); n != f.perKind {
			t.Errorf("%s: %d goroutines in the trace capture, want %d", k.fn, n, f.perKind)
		}
	}
}

func TestCaptureCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range Modes() {
		if _, err := Capture(ctx, CaptureOptions{Mode: m}); err != context.Canceled {
			t.Errorf("%s capture with a cancelled context: %v, want context.Canceled", m, err)
		}
	}
}

// checkCaptureMeta checks the dump metadata every capture sets.
func checkCaptureMeta(t *testing.T, d *stack.Dump, mode Mode) {
	t.Helper()
	s := d.Source
	if s.Runtime != runtime.Version() || s.CapturedAt.IsZero() || s.Target == "" {
		t.Errorf("source %+v: want runtime, capture time and target set", s)
	}
	c := s.Capture
	if c == nil {
		t.Fatal("no Source.Capture")
	}
	if c.Mode != string(mode) || c.Goroutines < 6*fixturePerKind/10 || c.Duration <= 0 {
		t.Errorf("capture %+v: want mode %s, goroutines and duration", c, mode)
	}
}
