package leakcheck

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB that records what VerifyNone reports instead
// of failing the test; Name and the rest come from the real test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprint(args...))
}

func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }

func (r *recorder) Helper() {}

// fast keeps failing checks short: 3 retries, 1ms apart at most.
var fast = []Option{MaxRetries(3), MaxSleep(time.Millisecond)}

// parked starts n goroutines running park(release), returns once they are
// about to park (and a moment more, to let them block), and returns a
// function that releases them and waits until they are gone.
func parked(n int, park func(release chan struct{})) (stop func()) {
	release := make(chan struct{})
	var wg, ready sync.WaitGroup
	for range n {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			ready.Done()
			park(release)
		}()
	}
	ready.Wait()
	time.Sleep(20 * time.Millisecond)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(release)
			wg.Wait()
		})
	}
}

func blockedRecv(release chan struct{}) { <-release }

func blockedSelect(release chan struct{}) {
	tick := make(chan int)
	select {
	case <-release:
	case <-tick:
	}
}

func sleeping(release chan struct{}) {
	for {
		select {
		case <-release:
			return
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func TestVerifyNoneClean(t *testing.T) {
	stop := parked(10, blockedRecv)
	stop()
	rec := &recorder{TB: t}
	VerifyNone(rec, fast...)
	if len(rec.errs) != 0 {
		t.Fatalf("clean test reported: %v", rec.errs)
	}
}

func TestVerifyNoneReportsGroups(t *testing.T) {
	stopA := parked(6000, blockedRecv)
	defer stopA()
	stopB := parked(3000, blockedSelect)
	defer stopB()
	stopC := parked(1000, sleeping)
	defer stopC()
	rec := &recorder{TB: t}
	VerifyNone(rec, fast...)
	if len(rec.errs) != 1 {
		t.Fatalf("want one error, got %d", len(rec.errs))
	}
	text := rec.errs[0]
	t.Logf("report:\n%s", text)
	lines := strings.Count(text, "\n") + 1
	if lines > 36 {
		t.Errorf("10000 leftovers in 3 shapes took %d lines, want a few dozen:\n%s", lines, text)
	}
	for _, want := range []string{
		"found unexpected goroutines:\n10000 goroutines in 3 groups",
		"\n6000 [chan receive] created by github.com/stackdump/stackdump/leakcheck.parked in goroutine ",
		"\n3000 [select] created by",
		"\n    github.com/stackdump/stackdump/leakcheck.blockedRecv ",
		"\n    github.com/stackdump/stackdump/leakcheck.blockedSelect ",
		"\n    github.com/stackdump/stackdump/leakcheck.sleeping ",
		"leakcheck_test.go:",
		"\n    ids ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "proven leaked") {
		t.Errorf("goroutines the test can still release reported as proven leaked:\n%s", text)
	}
}

func TestFindError(t *testing.T) {
	stop := parked(3, blockedRecv)
	defer stop()
	err := Find(fast...)
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("Find = %v, want *Error", err)
	}
	if le.OtherCount != 3 || len(le.Other) != 1 || le.ProvenCount != 0 || le.Retries != 3 {
		t.Errorf("got %d in %d groups (proven %d), %d retries; want 3 in 1, 3 retries", le.OtherCount, len(le.Other), le.ProvenCount, le.Retries)
	}
	if g := le.Other[0]; g.States["chan receive"] != 3 || len(g.IDs) != 3 {
		t.Errorf("group states %v ids %v", g.States, g.IDs)
	}
	stop()
	if err := Find(fast...); err != nil {
		t.Errorf("after the goroutines ended: %v", err)
	}
	if err := Find(Cleanup(func(int) {})); err == nil {
		t.Error("Find accepted Cleanup")
	}
}

func TestIgnoreOptions(t *testing.T) {
	stopA := parked(5, blockedRecv)
	defer stopA()
	before := IgnoreCurrent()
	stopB := parked(2, blockedSelect)
	defer stopB()
	cases := []struct {
		name string
		opts []Option
		want int64 // leftovers
	}{
		{"none", nil, 7},
		{"IgnoreCurrent", []Option{before}, 2},
		{"IgnoreTopFunction", []Option{IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck.blockedRecv")}, 2},
		{"IgnoreTopFunction below top", []Option{IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck.parked.func1")}, 7},
		{"IgnoreAnyFunction", []Option{IgnoreAnyFunction("github.com/stackdump/stackdump/leakcheck.parked.func1")}, 0},
		{"IgnoreCreatedBy", []Option{IgnoreCreatedBy("github.com/stackdump/stackdump/leakcheck.parked")}, 0},
		{"both", []Option{before, IgnoreTopFunction("github.com/stackdump/stackdump/leakcheck.blockedSelect")}, 0},
	}
	for _, c := range cases {
		err := Find(append(c.opts, fast...)...)
		var got int64
		var le *Error
		if errors.As(err, &le) {
			got = le.OtherCount + le.ProvenCount
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: %d leftovers, want %d (%v)", c.name, got, c.want, err)
		}
	}
}

func TestRetriesWaitForExit(t *testing.T) {
	// Goroutines ending a little after the check starts are not leaks.
	stop := parked(20, blockedRecv)
	go func() {
		time.Sleep(5 * time.Millisecond)
		stop()
	}()
	if err := Find(); err != nil {
		t.Fatalf("goroutines that ended during the retries were reported: %v", err)
	}
	if err := Find(MaxRetries(0)); err != nil {
		t.Fatal(err)
	}
}

func TestMaxRetriesZeroFailsAtOnce(t *testing.T) {
	stop := parked(1, blockedRecv)
	defer stop()
	start := time.Now()
	err := Find(MaxRetries(0), MaxSleep(time.Hour))
	var le *Error
	if !errors.As(err, &le) || le.Retries != 0 {
		t.Fatalf("Find = %v, want an *Error after no retry", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("MaxRetries(0) slept: %v", d)
	}
}

func TestVerifyTestMain(t *testing.T) {
	var out strings.Builder
	defer func(w io.Writer) { stderr = w }(stderr)
	stderr = &out
	stop := parked(2, blockedRecv)
	defer stop()
	var code int
	VerifyTestMain(fakeM(0), append([]Option{Cleanup(func(c int) { code = c })}, fast...)...)
	if code != 1 || !strings.Contains(out.String(), "goleak: Errors on successful test run: found unexpected goroutines:\n2 goroutines in 1 group") {
		t.Errorf("exit %d, stderr %q", code, out.String())
	}
	out.Reset()
	VerifyTestMain(fakeM(3), Cleanup(func(c int) { code = c }))
	if code != 3 || out.Len() != 0 {
		t.Errorf("failed run: exit %d, stderr %q; want 3 and no check", code, out.String())
	}
	stop()
	VerifyTestMain(fakeM(0), Cleanup(func(c int) { code = c }))
	if code != 0 || out.Len() != 0 {
		t.Errorf("clean run: exit %d, stderr %q", code, out.String())
	}
}

type fakeM int

func (m fakeM) Run() int { return int(m) }
