//go:build linux && (amd64 || arm64)

package goproc_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/livechild"
)

// TestReadProcessBudget: the consistent snapshot when its predicted stall
// fits the budget; the read that never stops the target when it does not;
// and a snapshot that runs past the budget cut off there, the target
// resumed and read again without stopping it. Every goroutine is read
// each way, and the dump says which way.
func TestReadProcessBudget(t *testing.T) {
	ctx := context.Background()
	const n = 10_000
	tk := livechild.StartTick(ctx, t, "-goroutines", "10000")
	read := func(opts goproc.ProcessOptions) *goproc.ProcessRead {
		t.Helper()
		pr, err := goproc.ReadProcess(ctx, tk.PID, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Dump.Routines) < n || pr.Counted < n {
			t.Fatalf("%d goroutines read, %d counted; want %d and more", len(pr.Dump.Routines), pr.Counted, n)
		}
		return pr
	}

	// No budget: one instant. (A thread runnable but without a CPU for
	// 100 ms, on a saturated machine, makes the stop give up and the
	// read go on without stopping, with a warning: tried again.)
	pr := read(goproc.ProcessOptions{})
	for try := 0; try < 3 && pr.StopFailed != nil; try++ {
		t.Logf("the stop gave up: %v", pr.StopFailed)
		pr = read(goproc.ProcessOptions{})
	}
	if !pr.Stats.Stopped || pr.Dump.Source.Capture.Mode != goproc.ModeStopped || pr.OverBudget || pr.CutOff || pr.StallPerGoroutine() <= 0 {
		t.Errorf("no budget: %+v", pr)
	}

	var predicted time.Duration
	pr = read(goproc.ProcessOptions{MaxPause: 5 * time.Millisecond, BeforeStop: func(p time.Duration, _ int) { predicted = p }})
	if pr.Stats.Stopped || pr.Dump.Source.Capture.Mode != goproc.ModeLive || !pr.OverBudget || predicted != 0 ||
		pr.Predicted != goproc.PredictStall(pr.Counted, 0) || pr.Dump.Source.Capture.PausePredicted != pr.Predicted {
		t.Errorf("over the budget: %+v (BeforeStop saw %v)", pr, predicted)
	}

	// A prediction that fits (a cost per goroutine of 1 ns, as if measured
	// before), a stop that cannot (100,000 goroutines' records take tens of
	// ms to read): cut off at 1 ms and read again without stopping. (On a
	// loaded machine the threads may not all stop within half the budget:
	// the stop then gives up, the other way the budget holds; a few tries
	// see the cut.)
	big := livechild.StartTick(ctx, t, "-goroutines", "100000")
	cut := false
	for try := 0; try < 5 && !cut; try++ {
		pr, err := goproc.ReadProcess(ctx, big.PID, goproc.ProcessOptions{MaxPause: time.Millisecond, StallPerGoroutine: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Dump.Routines) < 100_000 || pr.Stats.Stopped || pr.Dump.Source.Capture.Mode != goproc.ModeLive || pr.OverBudget || !pr.CutOff && pr.StopFailed == nil {
			t.Fatalf("over 1 ms: %d goroutines, %+v", len(pr.Dump.Routines), pr)
		}
		want := "could not be stopped"
		if pr.CutOff {
			cut, want = true, "cut off"
		}
		found := false
		for _, w := range pr.Dump.Warnings {
			found = found || strings.Contains(w.Msg, want)
		}
		if !found {
			t.Errorf("the dump does not say %q: %v", want, pr.Dump.Warnings)
		}
	}
	if !cut {
		t.Error("no snapshot was cut off at 1 ms in 5 tries")
	}
	tk.RequireRunning(t)
	big.RequireRunning(t)

	// Refused before anything is attached.
	if _, err := goproc.ReadProcess(ctx, os.Getpid(), goproc.ProcessOptions{}); !errors.Is(err, goproc.ErrRefused) {
		t.Errorf("ReadProcess(itself): %v", err)
	}
}
