package leakcheck

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// errorOnly is the smallest TestingT: Error alone, as goleak's fakes.
type errorOnly struct{ errs []string }

func (e *errorOnly) Error(args ...any) { e.errs = append(e.errs, fmt.Sprint(args...)) }

// nilTB embeds a nil testing.TB: its promoted Helper, Name and Cleanup
// panic when called.
type nilTB struct {
	testing.TB
	errs []string
}

func (n *nilTB) Error(args ...any) { n.errs = append(n.errs, fmt.Sprint(args...)) }

func TestVerifyNoneTakesTestingT(t *testing.T) {
	stop := parked(1, blockedRecv)
	e, n := &errorOnly{}, &nilTB{}
	for _, tt := range []struct {
		name string
		t    TestingT
		errs func() []string
	}{
		{"Error only", e, func() []string { return e.errs }},
		{"nil embedded testing.TB", n, func() []string { return n.errs }},
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: VerifyNone panicked: %v", tt.name, p)
				}
			}()
			VerifyNone(tt.t, fast...)
		}()
		if got := tt.errs(); len(got) != 1 || !strings.HasPrefix(got[0], "found unexpected goroutines:\n1 goroutine in 1 group") {
			t.Errorf("%s: want the leftover reported, got %q", tt.name, got)
		}
	}
	stop()
	n = &nilTB{}
	VerifyNone(n, fast...)
	if len(n.errs) != 0 {
		t.Errorf("clean check with a nil embedded testing.TB: %q", n.errs)
	}
}

func TestFullStacks(t *testing.T) {
	stop := parked(2, func(release chan struct{}) { deep(12, release) })
	defer stop()
	short := Find(fast...)
	full := Find(append([]Option{FullStacks()}, fast...)...)
	if short == nil || full == nil {
		t.Fatalf("leftovers not found: %v / %v", short, full)
	}
	if !strings.Contains(short.Error(), "\n    … 9 more frames\n    github.com/stackdump/stackdump/leakcheck.parked.func1 ") || strings.Count(short.Error(), "leakcheck.deep ") != 5 {
		t.Errorf("default report: want the top 5 frames, a count of the rest and the bottom frame:\n%s", short)
	}
	if strings.Contains(full.Error(), "more frames") || strings.Count(full.Error(), "leakcheck.deep ") != 13 {
		t.Errorf("FullStacks: want all 13 frames of deep:\n%s", full)
	}
	if !strings.Contains(full.Error(), "leakcheck.parked.func1 ") {
		t.Errorf("FullStacks: the frame below deep is missing:\n%s", full)
	}
}

// deep blocks on release n+1 frames down.
//
//go:noinline
func deep(n int, release chan struct{}) {
	if n == 0 {
		<-release
		return
	}
	deep(n-1, release)
}

func TestRunOnFailure(t *testing.T) {
	var out strings.Builder
	defer func(w io.Writer) { stderr = w }(stderr)
	stderr = &out
	stop := parked(1, blockedRecv)
	defer stop()
	var code int
	exit := Cleanup(func(c int) { code = c })
	VerifyTestMain(fakeM(7), append([]Option{exit}, fast...)...)
	if code != 7 || out.Len() != 0 {
		t.Errorf("failed run without RunOnFailure: exit %d, stderr %q; want 7 and no check", code, out.String())
	}
	VerifyTestMain(fakeM(7), append([]Option{exit, RunOnFailure()}, fast...)...)
	if code != 7 || !strings.HasPrefix(out.String(), "goleak: Errors on unsuccessful test run: found unexpected goroutines:\n1 goroutine in 1 group") {
		t.Errorf("failed run with RunOnFailure: exit %d, stderr %q; want 7 and the report", code, out.String())
	}
	out.Reset()
	VerifyTestMain(fakeM(0), append([]Option{exit, RunOnFailure()}, fast...)...)
	if code != 1 || !strings.HasPrefix(out.String(), "goleak: Errors on successful test run: found unexpected goroutines:") {
		t.Errorf("passed run with RunOnFailure: exit %d, stderr %q; want 1 and the report", code, out.String())
	}
	out.Reset()
	stop()
	VerifyTestMain(fakeM(5), exit, RunOnFailure())
	if code != 5 || out.Len() != 0 {
		t.Errorf("failed run with RunOnFailure, no leftovers: exit %d, stderr %q", code, out.String())
	}
	if err := Find(RunOnFailure()); err == nil || err.Error() != "RunOnFailure can only be passed to VerifyTestMain" {
		t.Errorf("Find(RunOnFailure()) = %v, want goleak's error", err)
	}
	e := &errorOnly{}
	VerifyNone(e, RunOnFailure())
	if len(e.errs) != 1 || e.errs[0] != "RunOnFailure can only be passed to VerifyTestMain" {
		t.Errorf("VerifyNone(RunOnFailure()) reported %q, want goleak's error", e.errs)
	}
	if err := Find(Cleanup(func(int) {})); !errors.Is(err, errCleanupInFind) || err.Error() != "Cleanup can only be passed to VerifyNone or VerifyTestMain" {
		t.Errorf("Find(Cleanup) = %v, want goleak's error", err)
	}
}
