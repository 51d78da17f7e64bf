package report

import (
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// captureDoc says what a live capture really was and what it cost. Mode
// is the mode asked for; What is what the dump holds, read from the
// fetches that made it (Methods) when it came from another process, so
// that a trace snapshot taken under a full capture's pause budget is not
// called full; Instead says why it is not what was asked for.
type captureDoc struct {
	Mode       string   `json:"mode,omitempty"`
	What       string   `json:"what,omitempty"`
	Holds      string   `json:"holds,omitempty"`
	Instead    string   `json:"instead,omitempty"`
	Methods    []string `json:"methods,omitempty"`
	Goroutines int      `json:"goroutines,omitempty"`
	Duration   string   `json:"duration,omitempty"`
	Pause      string   `json:"pause,omitempty"`
	Pauses     int      `json:"pauses,omitempty"`
	// Observed is an upper bound of a remote traceback's pause (its
	// answer wait); Predicted the longest pause predicted before.
	Observed  string   `json:"observed,omitempty"`
	Predicted string   `json:"predicted,omitempty"`
	Missing   []string `json:"missing,omitempty"`
}

// What each kind of capture holds, by what took it.
var captureKinds = []struct {
	method, mode string // Capture.Methods entry, Capture.Mode of an in-process capture
	what, holds  string
}{
	{"goroutineleak", "leak", "goroutine leak profile", "every goroutine, those the runtime proved leaked marked (leaked)"},
	{"trace", "trace", "execution-trace snapshot", "every goroutine's id, state and stack; no wait times or arguments, and creators only of goroutines started during it"},
	{"debug2", "full", "full traceback", "every goroutine's id, state, wait time, arguments and creator"},
	{"debug0", "grouped", "goroutine profile (grouped)", "counts per stack with labels; no ids, states or wait times"},
	{"debug1", "", "counts per stack (debug=1)", "counts per stack with labels; no ids, states or wait times"},
}

func buildCapture(c *stack.Capture) *captureDoc {
	out := &captureDoc{Mode: c.Mode, Methods: c.Methods, Goroutines: c.Goroutines, Pauses: c.Pauses, Missing: c.Missing}
	for _, k := range captureKinds {
		if len(c.Methods) > 0 && slices.Contains(c.Methods, k.method) || len(c.Methods) == 0 && k.mode != "" && c.Mode == k.mode {
			out.What, out.Holds = k.what, k.holds
			break
		}
	}
	if c.Mode == "full" && len(c.Methods) > 0 && !slices.Contains(c.Methods, "debug2") {
		switch {
		case slices.Contains(c.Methods, "trace"):
			out.Instead = "a full capture was asked for; the trace snapshot stood in for the traceback, predicted over the pause budget or past debug=2's 64 MiB cut"
		case slices.Contains(c.Methods, "debug1"):
			out.Instead = "a full capture was asked for; the counts stood in for the traceback (not wanted, or over the pause budget from a target that serves no trace snapshot)"
		}
	}
	if c.Duration > 0 {
		out.Duration = c.Duration.String()
	}
	if c.Pause > 0 {
		out.Pause = c.Pause.String()
	}
	if c.PauseObserved > 0 {
		out.Observed = roundDuration(c.PauseObserved)
	}
	if c.PausePredicted > 0 {
		out.Predicted = roundDuration(c.PausePredicted)
	}
	return out
}

// roundDuration is d for people: µs below a millisecond, then tenths.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < time.Second:
		d = d.Round(100 * time.Microsecond)
	default:
		d = d.Round(10 * time.Millisecond)
	}
	return strings.Replace(d.String(), "µs", " µs", 1)
}
