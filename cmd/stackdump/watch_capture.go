package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// watchCapture is what one snapshot took from its target and what that
// cost it: the table's "capture:" line and --json's "capture".
type watchCapture struct {
	// Mode is what the snapshot holds: "full" (a traceback), "trace" (the
	// execution-trace snapshot), "counts" (debug=1 alone), "grouped",
	// "leak", or the target's kind ("jvm", "gops").
	Mode string `json:"mode"`
	// Methods are the fetches that made it (source.capture.methods).
	Methods []string `json:"methods,omitempty"`
	// PauseNs is the longest stop-the-world pause the snapshot cost the
	// target, as well as it is known; PauseBasis says how: "measured" (by
	// the target itself: stackdump's endpoint), "observed" (debug=2's
	// answer wait, an upper bound) or "predicted".
	PauseNs    int64  `json:"pause_ns"`
	PauseBasis string `json:"pause_basis,omitempty"`
	// PausePredictedNs and PauseObservedNs are source.capture's.
	PausePredictedNs int64 `json:"pause_predicted_ns,omitempty"`
	PauseObservedNs  int64 `json:"pause_observed_ns,omitempty"`
	// FullPredictedNs is the pause a traceback of the counted goroutines
	// was predicted to cost, whether it was taken or not (0: no count).
	FullPredictedNs int64 `json:"full_predicted_ns,omitempty"`
	// Model is the target's pause model after this snapshot: what the
	// next prediction uses.
	Model *pauseModelJSON `json:"model,omitempty"`
	// NoTrace is set when the target serves no execution-trace snapshot
	// (/debug/pprof/trace: Go before 1.23, or a proxy that passes only the
	// goroutine profile), so that a snapshot that wanted detail over the
	// budget is its counts per stack.
	NoTrace bool `json:"no_trace,omitempty"`
	// Why says why the snapshot took what it took, under the pause budget.
	Why string `json:"why,omitempty"`
}

// pauseModelJSON is a target's remote.PauseModel as --json shows it.
type pauseModelJSON struct {
	// CostPerKiBNs is the traceback's pause per KiB of its text predicted
	// from the counts; Measured is how many tracebacks of the target it
	// comes from (0: the prior, remote.PriorFullCostPerKiB).
	CostPerKiBNs int64 `json:"cost_per_kib_ns"`
	Measured     int   `json:"measured"`
	// Error is the factor predictions are widened by before they are
	// compared with --max-pause (remote.PauseModel.Error).
	Error float64 `json:"error"`
}

func modelJSON(m *remote.PauseModel) *pauseModelJSON {
	return &pauseModelJSON{CostPerKiBNs: int64(m.CostPerKiB()), Measured: m.Measured(), Error: m.Error()}
}

// costText says what a prediction of the model was made from.
func (m *pauseModelJSON) costText() string {
	if m.Measured == 0 {
		return fmt.Sprintf("%v/KiB, the prior", roundPause(time.Duration(m.CostPerKiBNs)))
	}
	return fmt.Sprintf("%v/KiB, measured by %s", roundPause(time.Duration(m.CostPerKiBNs)), words.Count(m.Measured, "traceback"))
}

// text is the table's line: "trace (debug1, trace), pause ≈200µs
// predicted: new group main.worker (worker.go:42) (3)".
func (c watchCapture) text() string {
	var b strings.Builder
	b.WriteString(c.Mode)
	if len(c.Methods) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(c.Methods, " + "))
	}
	if c.PauseNs > 0 {
		p := time.Duration(c.PauseNs)
		switch c.PauseBasis {
		case "predicted":
			fmt.Fprintf(&b, ", pause ≈%v predicted", roundPause(p))
		case "observed":
			fmt.Fprintf(&b, ", pause ≤%v observed", roundPause(p))
		default:
			fmt.Fprintf(&b, ", pause %v %s", roundPause(p), c.PauseBasis)
		}
		if c.Mode == "full" && c.PauseBasis != "predicted" && c.FullPredictedNs > 0 {
			fmt.Fprintf(&b, " (≈%v predicted", roundPause(time.Duration(c.FullPredictedNs)))
			if c.Model != nil {
				fmt.Fprintf(&b, "; next at %s", c.Model.costText())
			}
			b.WriteString(")")
		}
	}
	if c.Why != "" {
		b.WriteString(": " + c.Why)
	}
	return b.String()
}

// roundPause rounds a pause for people: µs below a millisecond, then ms.
func roundPause(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(10 * time.Millisecond)
}

// bestPause is the best known figure of the longest pause a capture cost:
// the target's own measure (stackdump's endpoint), else debug=2's observed
// answer wait, else the prediction; with its basis.
func bestPause(c *stack.Capture) (time.Duration, string) {
	switch {
	case c == nil:
		return 0, ""
	case c.Pause > 0:
		return c.Pause, "measured"
	case c.PauseObserved > 0:
		return c.PauseObserved, "observed"
	case c.PausePredicted > 0:
		return c.PausePredicted, "predicted"
	}
	return 0, ""
}

// captureMode names what a snapshot with capture metadata c holds.
func captureMode(c *stack.Capture, kind string) string {
	if c == nil {
		return kind
	}
	has := func(m string) bool { return slices.Contains(c.Methods, m) }
	switch {
	case has("goroutineleak"):
		return "leak"
	case has("trace"):
		return "trace"
	case has("debug2"):
		return "full"
	case has("debug0"):
		return "grouped"
	case has("debug1"):
		return "counts"
	case c.Mode != "":
		return c.Mode
	}
	return kind
}

// describeCapture says what t's snapshot res took, what it cost and why.
func (w *watcher) describeCapture(t *watchedTarget, res captureResult, last dumpResult) watchCapture {
	c := last.dump.Source.Capture
	wc := watchCapture{Mode: captureMode(c, string(t.target.Kind))}
	if c != nil {
		wc.Methods = c.Methods
		wc.PausePredictedNs, wc.PauseObservedNs = int64(c.PausePredicted), int64(c.PauseObserved)
	}
	p, basis := bestPause(c)
	wc.PauseNs, wc.PauseBasis = int64(p), basis
	wc.FullPredictedNs = int64(res.fullPredicted)
	wc.NoTrace = t.noTrace
	if res.job.ropts.Pauses != nil {
		wc.Model = modelJSON(res.job.ropts.Pauses)
	}
	switch {
	case res.noDetail:
		wc.Why = "no group grew or appeared since the last snapshot"
	case res.overBudget:
		cost := ""
		if wc.Model != nil {
			cost = wc.Model.costText()
		}
		wc.Why = overBudgetWhy(res.goroutines, res.fullPredicted, res.fullError, cost, w.maxPause, true)
		if t.detailWhy != "" {
			wc.Why = t.detailWhy + "; " + wc.Why
		}
		if res.noTrace {
			wc.Why += ", and the target serves no trace snapshot: counts per stack only"
		}
	case t.detailWhy != "":
		wc.Why = t.detailWhy
	}
	t.detailWhy = ""
	return wc
}
