package compat

// Item 11 of issue 37: leakcheck's GoleakReport option prints goleak
// v1.3.0's report, byte for byte. This file runs both checkers in one
// binary, whichever implementation the build tags bind to the rest.

import (
	"runtime/debug"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/stackdump/stackdump/leakcheck"
)

//go:noinline
func reportRecv(ch chan struct{}) { <-ch }

//go:noinline
func reportSelect(a, b chan struct{}) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func reportNested(ch chan struct{}) { reportRecv(ch) }

// reportSpawner starts a goroutine of its own and blocks: a creator that
// is not the test.
func reportSpawner(ch chan struct{}) {
	go reportNested(ch)
	<-ch
}

// TestGoleakReportIsGoleaks leaves goroutines of four shapes (a receive,
// a select, a nested call, one started by another leftover), then asks
// goleak v1.3.0 and leakcheck with GoleakReport: the two reports are the
// same text, every stack whole, in the same order.
func TestGoleakReportIsGoleaks(t *testing.T) {
	glIgnore, lcIgnore := goleak.IgnoreCurrent(), leakcheck.IgnoreCurrent()
	release := make(chan struct{})
	defer func() {
		close(release)
		waitGone(t, "compat.report")
	}()
	go reportRecv(release)
	go reportRecv(release)
	go reportSelect(release, make(chan struct{}))
	go reportSpawner(release)
	waitFor(t, "compat.reportSelect", "select")
	waitFor(t, "compat.reportSpawner", "chan receive")
	waitFor(t, "compat.reportNested", "chan receive")

	want := goleak.Find(glIgnore)
	got := leakcheck.Find(lcIgnore, leakcheck.GoleakReport(), leakcheck.MaxSleep(time.Millisecond))
	if want == nil || got == nil {
		t.Fatalf("goleak: %v; leakcheck: %v; want both to find the goroutines", want, got)
	}
	if got.Error() != want.Error() {
		t.Errorf("leakcheck's GoleakReport differs from goleak's report:\nleakcheck:\n%s\ngoleak:\n%s", got, want)
	}
	t.Logf("%s", got)
}

// TestIgnoreTopFunctionAtGOTRACEBACKSystem: runtime.Stack prints at level
// 1 whatever GOTRACEBACK says (runtime.gopark and the other runtime frames
// stay hidden), so goleak's IgnoreTopFunction ignores a goroutine by its
// first function at GOTRACEBACK=system too, as leakcheck's does.
func TestIgnoreTopFunctionAtGOTRACEBACKSystem(t *testing.T) {
	debug.SetTraceback("system")
	defer debug.SetTraceback("single")
	ignore := IgnoreCurrent()
	release := make(chan struct{})
	defer func() {
		close(release)
		waitGone(t, "compat.reportRecv")
	}()
	go reportRecv(release)
	waitFor(t, "compat.reportRecv", "chan receive")
	if Find(ignore, fast()) == nil {
		t.Fatalf("%s: the blocked goroutine was not found", impl)
	}
	if err := Find(ignore, fast(), IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck/compat.reportRecv")); err != nil {
		t.Errorf("%s at GOTRACEBACK=system: IgnoreTopFunction of the first function did not ignore it:\n%v", impl, err)
	}
}
