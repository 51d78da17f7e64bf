package leakcheck

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitBlocked waits until n goroutines whose stack holds fn are in a
// state starting with state (n == 0: until none is left): a goroutine
// just started may still be running on a loaded machine, and one about
// to exit may still be there.
func waitBlocked(t *testing.T, fn, state string, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, state) && strings.Contains(g, fn) {
				got++
			}
		}
		if got >= n && (n > 0 || got == 0) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines in %s blocked in %s, want %d", got, fn, state, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// With OnlyOwnGoroutines, a subtest's VerifyNone sees the goroutines the
// subtest started through live goroutines, and not its parent's; an orphan
// (its creator exited) is left out. Without it, the subtest's check is the
// whole-process one, goleak's: the parent's goroutines count unless an
// IgnoreCurrent snapshot taken at the subtest's start ignores them.
func TestSubtestScope(t *testing.T) {
	stopParent := parked(3, blockedRecv)
	defer stopParent()
	own := append([]Option{OnlyOwnGoroutines()}, fast...)
	t.Run("clean", func(t *testing.T) {
		before := IgnoreCurrent()
		rec := &recorder{TB: t}
		stop := parked(4, blockedSelect)
		stop()
		VerifyNone(rec, own...)
		if len(rec.errs) != 0 {
			t.Errorf("OnlyOwnGoroutines: the parent's goroutines were reported in a clean subtest: %v", rec.errs)
		}
		VerifyNone(rec, append([]Option{before}, fast...)...)
		if len(rec.errs) != 0 {
			t.Errorf("IgnoreCurrent at the subtest's start: the parent's goroutines were reported: %v", rec.errs)
		}
		VerifyNone(rec, fast...)
		if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "found unexpected goroutines:\n3 goroutines in ") {
			t.Errorf("default check in a subtest: want the parent's 3 goroutines reported, as goleak does: %v", rec.errs)
		}
	})
	t.Run("leaky", func(t *testing.T) {
		rec := &recorder{TB: t}
		stop := parked(2, blockedSelect)
		defer stop()
		// An orphan: its creator has exited by the time of the check.
		release := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		started := make(chan struct{})
		go func() {
			go func() {
				defer wg.Done()
				close(started)
				blockedRecv(release)
			}()
		}()
		<-started
		defer func() { close(release); wg.Wait() }()
		waitBlocked(t, "leakcheck.blockedRecv", "[chan receive", 4) // the parent's 3 and the orphan
		waitBlocked(t, "leakcheck.TestSubtestScope.func3.1()\n", "goroutine ", 0)
		VerifyNone(rec, own...)
		if len(rec.errs) != 1 {
			t.Fatalf("want one report, got %v", rec.errs)
		}
		text := rec.errs[0]
		if !strings.Contains(text, "found unexpected goroutines:\n2 goroutines in ") || !strings.Contains(text, "leakcheck.blockedSelect") {
			t.Errorf("OnlyOwnGoroutines: want the subtest's 2 goroutines (and not its orphan, whose creator has exited):\n%s", text)
		}
		if strings.Contains(text, "leakcheck.blockedRecv") || strings.Contains(text, "\n3 ") {
			t.Errorf("OnlyOwnGoroutines: the parent's goroutines were reported:\n%s", text)
		}
		rec.errs = nil
		VerifyNone(rec, fast...)
		if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "found unexpected goroutines:\n6 goroutines in ") {
			t.Errorf("default check: want the subtest's 2, its orphan and the parent's 3: %v", rec.errs)
		}
	})
	// The top-level test: the whole-process check.
	rec := &recorder{TB: t}
	VerifyNone(rec, fast...)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "found unexpected goroutines:\n3 goroutines") {
		t.Errorf("top-level check: %v", rec.errs)
	}
}

func TestMembershipChains(t *testing.T) {
	// A real snapshot: root (this goroutine) starts a, a starts b; c is
	// started by the parent chain's goroutine outside.
	release := make(chan struct{})
	defer close(release)
	ids := make(chan int64, 3)
	go func() { // a
		ids <- currentID()
		go func() { ids <- currentID(); <-release }() // b
		<-release
	}()
	a, b := <-ids, <-ids
	deadline := time.Now().Add(5 * time.Second)
	var s *snapshot
	for {
		s = takeSnapshot()
		if m := (&scope{root: currentID()}).membership(s); m.has(a) && m.has(b) || time.Now().After(deadline) {
			break
		}
		s.release()
	}
	defer s.release()
	m := (&scope{root: currentID()}).membership(s)
	if !m.has(a) || !m.has(b) {
		t.Errorf("children of the root not members: a %v b %v", m.has(a), m.has(b))
	}
	if m.has(1) {
		t.Error("goroutine 1 (the test binary's main) is a member")
	}
	if m.parents[b] != a {
		t.Errorf("parent of %d read as %d, want %d", b, m.parents[b], a)
	}
}
