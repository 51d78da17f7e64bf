package compat

// Item 3 of issue 25: goleak's options mean the same. api_test.go checks
// names and signatures.

import (
	"strings"
	"testing"
	"time"
)

// leftovers runs Find with opts and says whether it found any.
func leftovers(opts ...Option) bool { return Find(append(opts, fast())...) != nil }

func TestIgnoreTopFunction(t *testing.T) {
	b := startBlocked(t)
	defer b.unblock()
	if !leftovers() {
		t.Fatalf("%s: the blocked goroutine was not found", impl)
	}
	if leftovers(IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck/compat.(*blocked).wait")) {
		t.Errorf("%s: IgnoreTopFunction of its top frame did not ignore it", impl)
	}
	if !leftovers(IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck/compat.startBlocked")) {
		t.Errorf("%s: IgnoreTopFunction of its creator ignored it", impl)
	}
}

// nested blocks two frames below its go statement.
func nested(release chan struct{}) { nestedInner(release) }

func nestedInner(release chan struct{}) { <-release }

func TestIgnoreAnyFunction(t *testing.T) {
	release := make(chan struct{})
	go nested(release)
	defer close(release)
	waitFor(t, "compat.nestedInner", "chan receive")
	if !leftovers(IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck/compat.nested")) {
		t.Errorf("%s: IgnoreTopFunction of a frame below the top ignored it", impl)
	}
	if leftovers(IgnoreAnyFunction("github.com/stackdump/stackdump/leakcheck/compat.nested")) {
		t.Errorf("%s: IgnoreAnyFunction of a frame below the top did not ignore it", impl)
	}
	if !leftovers(IgnoreAnyFunction("github.com/stackdump/stackdump/leakcheck/compat.TestIgnoreAnyFunction")) {
		t.Errorf("%s: IgnoreAnyFunction of the creator (not a frame) ignored it", impl)
	}
}

func TestIgnoreCurrent(t *testing.T) {
	before := startBlocked(t)
	defer before.unblock()
	opt := IgnoreCurrent()
	if leftovers(opt) {
		t.Fatalf("%s: IgnoreCurrent did not ignore the goroutine there before it", impl)
	}
	after := startBlocked(t)
	defer after.unblock()
	if !leftovers(opt) {
		t.Errorf("%s: IgnoreCurrent ignored a goroutine started after it", impl)
	}
}

func TestCleanup(t *testing.T) {
	code := -1
	VerifyNone(&errorOnly{}, Cleanup(func(c int) { code = c }))
	if code != 0 {
		t.Errorf("%s: VerifyNone's Cleanup got %d, want 0", impl, code)
	}
	VerifyTestMain(fakeM(3), Cleanup(func(c int) { code = c }))
	if code != 3 {
		t.Errorf("%s: VerifyTestMain's Cleanup got %d, want the tests' 3", impl, code)
	}
	err := Find(Cleanup(func(int) { t.Errorf("%s: Find called Cleanup", impl) }))
	if err == nil || err.Error() != "Cleanup can only be passed to VerifyNone or VerifyTestMain" {
		t.Errorf("%s: Find(Cleanup) = %v, want goleak's error", impl, err)
	}
}

// A goroutine that ends while the check retries is no leftover (goleak's
// default: 20 retries, sleeps doubling from 1µs to 100ms).
func TestRetries(t *testing.T) {
	b := startBlocked(t)
	go func() {
		time.Sleep(5 * time.Millisecond)
		b.unblock()
	}()
	if err := Find(); err != nil {
		t.Errorf("%s: a goroutine ending during the retries was reported: %v", impl, err)
	}
}

// The testing package's and os/signal's goroutines are ignored.
func TestDefaultIgnores(t *testing.T) {
	t.Run("parallel", func(t *testing.T) { t.Parallel() }) // waits in t.Parallel until this test ends
	var got []string
	t.Run("serial", func(t *testing.T) {
		rec := &recorder{TB: t}
		VerifyNone(rec)
		got = rec.reports()
	})
	if len(got) != 0 {
		t.Errorf("%s: testing's goroutines reported: %q", impl, got)
	}
	if err := Find(); err != nil && strings.Contains(err.Error(), "os/signal") {
		t.Errorf("%s: os/signal reported: %v", impl, err)
	}
}

type fakeM int

func (m fakeM) Run() int { return int(m) }
