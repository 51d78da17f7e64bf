package leakcheck

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A subtest's VerifyNone sees the goroutines the subtest started, directly
// or through goroutines that have exited since, and not its parent's.
func TestSubtestScope(t *testing.T) {
	stopParent := parked(3, blockedRecv)
	defer stopParent()
	t.Run("clean", func(t *testing.T) {
		rec := &recorder{TB: t}
		stop := parked(4, blockedSelect)
		stop()
		VerifyNone(rec, fast...)
		if len(rec.errs) != 0 {
			t.Errorf("the parent's goroutines were reported in a clean subtest: %v", rec.errs)
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
		VerifyNone(rec, fast...)
		if len(rec.errs) != 1 {
			t.Fatalf("want one report, got %v", rec.errs)
		}
		text := rec.errs[0]
		if !strings.Contains(text, "found 3 unexpected goroutines in ") || !strings.Contains(text, "leakcheck.blockedSelect") ||
			!strings.Contains(text, "TestSubtestScope.func2.1") {
			t.Errorf("want the subtest's 2 goroutines and its orphan:\n%s", text)
		}
		if strings.Count(text, "leakcheck.blockedRecv") != 1 || strings.Contains(text, "\n3 ") {
			t.Errorf("the parent's goroutines were reported:\n%s", text)
		}
	})
	// The top-level test keeps goleak's whole-process check.
	rec := &recorder{TB: t}
	VerifyNone(rec, fast...)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "found 3 unexpected goroutines") {
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
