package demo

import (
	"context"
	"testing"
	"time"

	"github.com/stackdump/stackdump/leakcheck"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
)

// waitLeaked waits until the service has leaked at least n goroutines.
func waitLeaked(t *testing.T, s *Service, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.Leaked() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d goroutines leaked in 20s", s.Leaked())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close stops every goroutine the service started, the leaked ones too.
func TestServiceCloseLeavesNoGoroutines(t *testing.T) {
	defer leakcheck.VerifyNone(t, leakcheck.IgnoreCurrent())
	s, err := Start(Options{LeakRate: 200})
	if err != nil {
		t.Fatal(err)
	}
	waitLeaked(t, s, 20)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A real capture of the service over HTTP: the analysis flags the leak,
// and not the idle worker pool (64 goroutines parked on a channel by one
// live parent), and finds the contention on the price cache.
func TestCaptureAnalysisFindsLeakNotPool(t *testing.T) {
	s, err := Start(Options{LeakRate: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitLeaked(t, s, 2*analyze.DefaultLeakMinCount)
	d, err := s.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum := analyze.Summarize(d, dedupe.Group(d, dedupe.Options{}), analyze.Options{})

	const pkg = "github.com/stackdump/stackdump/internal/demo."
	if len(sum.LikelyLeaks) != 1 {
		t.Fatalf("likely leaks %+v; want only fetchQuote", sum.LikelyLeaks)
	}
	leak := sum.LikelyLeaks[0]
	if leak.Frame.Func != pkg+"(*Service).fetchQuote" || leak.State != "chan send" || leak.CreatedBy.Func != pkg+"(*Service).handleQuote" {
		t.Errorf("suspect %+v", leak)
	}
	if leak.Blocked < int64(analyze.DefaultLeakMinCount) || leak.Parents < analyze.DefaultLeakMinParents || 2*leak.ExitedParents <= leak.Parents {
		t.Errorf("suspect: %d blocked, %d parents, %d exited", leak.Blocked, leak.Parents, leak.ExitedParents)
	}
	if leak.Labels["handler"] != "quote" && d.Source.Kind == "stackdump-json" {
		t.Errorf("leak labels %v", leak.Labels)
	}

	var pool *analyze.GroupRow
	for i, g := range sum.TopGroups {
		if g.Frame != nil && g.Frame.Func == pkg+"(*workerPool).work" {
			pool = &sum.TopGroups[i]
		}
	}
	if pool == nil || pool.Count != 64 || pool.State != "chan receive" {
		t.Errorf("the idle pool should be among the largest groups: %+v", sum.TopGroups)
	}

	if sum.ContentionTotal == 0 || sum.Contention[0].Frame.Func != pkg+"(*priceCache).Get" || sum.Contention[0].Lock != analyze.LockMutex {
		t.Errorf("contention %d: %+v", sum.ContentionTotal, sum.Contention)
	}
}
