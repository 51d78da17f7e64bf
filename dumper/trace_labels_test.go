package dumper

import (
	"context"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// labelledPark blocks on ch under labels; each call site is its own stack.
func labelledParkA(ch chan struct{}) { <-ch }
func labelledParkB(ch chan struct{}) { <-ch }
func labelledParkC(ch chan struct{}) { <-ch }

func startLabelled(wg *sync.WaitGroup, n int, labels []string, park func(chan struct{}), ch chan struct{}) {
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if labels == nil {
				park(ch)
				return
			}
			pprof.Do(context.Background(), pprof.Labels(labels...), func(context.Context) { park(ch) })
		}()
	}
}

// TestCaptureTraceLabels checks that pprof labels are joined from the
// goroutine profile by stack, and that goroutines whose stack is shared by
// different label sets are left unlabelled and reported.
func TestCaptureTraceLabels(t *testing.T) {
	var wg sync.WaitGroup
	chA, chB, chC := make(chan struct{}), make(chan struct{}), make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a", "job", "sync"}, labelledParkA, chA)
	startLabelled(&wg, 10, nil, labelledParkB, chB)
	startLabelled(&wg, 5, []string{"tenant", "b"}, labelledParkC, chC)
	startLabelled(&wg, 5, []string{"tenant", "c"}, labelledParkC, chC)
	defer func() {
		close(chA)
		close(chB)
		close(chC)
		wg.Wait()
	}()
	waitParked(t, 30, "labelledPark")

	d, err := captureTrace(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := labelCounts(d)
	want := map[string]int{
		"labelledParkA job=sync,tenant=a": 10,
		"labelledParkB ":                  10,
		"labelledParkC ":                  10, // b and c share the stack
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%d goroutines %q, want %d (all: %v)", counts[k], k, n, counts)
		}
	}
	var first stack.Labels
	for _, r := range d.Routines {
		if len(r.Labels) == 0 {
			continue
		}
		if first == nil {
			first = r.Labels
		} else if &first[0] != &r.Labels[0] {
			t.Errorf("goroutine %d: equal label sets not interned to one", r.ID)
		}
	}
	if !slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v, want labels listed: 10 goroutines' labels are unknown", d.Source.Capture.Missing)
	}
	if !hasWarning(d, "pprof labels of 10 goroutines on 1 stack(s) are unknown") {
		t.Errorf("no warning about the 10 ambiguous goroutines: %v", d.Warnings)
	}

	close(chC)
	chC = make(chan struct{})
	waitParked(t, 20, "labelledPark")
	d, err = captureTrace(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if counts := labelCounts(d); counts["labelledParkA job=sync,tenant=a"] != 10 {
		t.Errorf("labels not joined: %v", counts)
	}
	if slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v lists labels, but every goroutine's labels are known", d.Source.Capture.Missing)
	}
}

// labelCounts counts the routines parked in a labelledPark function by
// function name and labels.
func labelCounts(d *stack.Dump) map[string]int {
	counts := make(map[string]int)
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if i := strings.Index(f.Func, "labelledPark"); i >= 0 {
				var ls []string
				for _, l := range r.Labels {
					ls = append(ls, l.Key+"="+l.Value)
				}
				counts[f.Func[i:]+" "+strings.Join(ls, ",")]++
				break
			}
		}
	}
	return counts
}

func hasWarning(d *stack.Dump, text string) bool {
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, text) {
			return true
		}
	}
	return false
}

// waitParked waits until n goroutines with a frame containing fn are
// blocked, per runtime.Stack.
func waitParked(t *testing.T, n int, fn string) {
	t.Helper()
	for try := 0; ; try++ {
		text := allStacks(t)
		parked := 0
		for _, r := range text {
			if r.State == "runnable" || r.State == "running" {
				continue
			}
			for _, f := range r.Frames() {
				if strings.Contains(f.Func, fn) {
					parked++
					break
				}
			}
		}
		if parked == n {
			return
		}
		if try == 200 {
			t.Fatalf("%d goroutines parked in %s, want %d", parked, fn, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
