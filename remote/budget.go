package remote

import (
	"slices"
	"time"
)

// The pause budget.
//
// A full capture of a Go process is a traceback of every goroutine taken
// with the world stopped: its pause grows with the text the traceback
// prints (goroutines × depth), up to seconds. The other methods stop the
// world once or twice for a time that does not grow with the goroutines.
// With Options.MaxPause set, a full capture counts the goroutines first
// (debug=1), predicts the traceback's size from the counted stacks
// (predictDebug2Size: within 15% of the real text, above it) and its pause
// as that size × a cost per KiB ([PauseModel]), and takes the traceback
// only when the prediction, widened by the model's own error, fits the
// budget; otherwise the execution-trace snapshot (every goroutine's id,
// state and stack after one short pause), or, from a target that serves
// no trace, the counts.
//
// The model learns: each traceback taken is measured — by stackdump's
// endpoint itself, or from outside as debug=2's answer wait (from the
// request to the first byte of the answer, which the runtime sends only
// once the traceback is done; an upper bound, since it includes the round
// trip and the smaller tracebacks net/http/pprof takes first while it grows
// its buffer) — and the next prediction uses the target's own cost.

// PriorFullCostPerKiB is the pause a traceback is predicted to cost per KiB
// of its text (as predicted from the counts) before one of the target was
// measured. Measured on the project's 2-core VM with
// testdata/gen/pausetarget (the longest stop-the-world pause of a debug=2
// request, runtime/metrics /sched/pauses/total/other:seconds at its
// bucket's upper bound), over the predicted KiB: 9–18 µs at load average
// 2 (100 to 50,000 goroutines parked 0 to 30 frames deep), 12–40 µs at
// load average 8–14 (1,000 and 20,000 goroutines). 50 µs is above every
// value but the pauses a thread descheduled by the host stretches (once
// 50 ms for 1,000 goroutines at the top of their stacks, 128 µs per KiB),
// which the constant-pause methods meet alike: a budget of 10 ms admits a
// first traceback of about 200 KiB, some 500 goroutines a few frames deep
// or 80 parked 30 frames down (docs/modes.md).
const PriorFullCostPerKiB = 50 * time.Microsecond

// Predicted pauses of the methods whose pause does not grow with the
// goroutines, the upper ends of what scripts/measure-pauses.sh measured at
// 1,000 and 20,000 goroutines under load: the trace snapshot's one pause
// 25 µs–1.8 ms (mostly under 0.2 ms), debug=1's and debug=0's two pauses
// 8 µs–12 ms each (mostly under 0.5 ms; the outliers are a descheduled
// thread while the world stops, which no method escapes).
const (
	TracePause  = 200 * time.Microsecond
	CountsPause = 500 * time.Microsecond
)

// pauseSamples is how many measured tracebacks a PauseModel remembers,
// and PauseMemory for how many captures of the target (Tick) it remembers
// each one.
const (
	pauseSamples = 5
	PauseMemory  = 30
)

// PauseModel predicts the pause of a target's traceback and learns from
// the ones measured. Its rule (docs/modes.md, "The pause budget"):
//
//   - A prediction is the traceback's size predicted from the counts, in
//     KiB, × the cost per KiB: the median of the costs measured by the
//     last five tracebacks of the target, or PriorFullCostPerKiB before
//     any. A median, so that one traceback slowed by a busy host does not
//     shut the target out of full captures (no traceback is taken while
//     predictions are over the budget, so nothing would measure it again),
//     nor one fast traceback let a slow target in.
//   - The model's error is the largest factor by which one of the last
//     five predictions fell short of the pause measured after it (1 when
//     none did). A traceback is taken only when its prediction × that
//     error fits the budget: a target whose pause the model underestimated
//     is given room by as much.
//   - A measurement is forgotten PauseMemory captures of the target after
//     it was made (Tick): a target whose traceback was measured slow —
//     a busy host, the round trip of a small one — and that is therefore
//     predicted over the budget since, never measured again, is tried at
//     the prior again then, which is as safe as its first traceback was.
//
// The zero PauseModel predicts from the prior. A PauseModel is not safe
// for concurrent use: one per target, updated after each capture.
type PauseModel struct {
	samples []pauseSample // oldest first, at most pauseSamples
	ticks   int           // captures of the target so far (Tick)
	// stall is what a pid: target's last consistent snapshot stalled it
	// per goroutine (goproc's own model predicts from it; 0: its prior).
	stall time.Duration
}

// pauseSample is one measured traceback.
type pauseSample struct {
	cost  time.Duration // pause per KiB
	error float64       // measured pause / predicted pause (0: no prediction)
	at    int           // ticks when it was measured
}

// Tick counts a capture of the target and forgets the measurements made
// PauseMemory captures ago.
func (m *PauseModel) Tick() {
	m.ticks++
	for len(m.samples) > 0 && m.ticks-m.samples[0].at >= PauseMemory {
		m.samples = m.samples[1:]
	}
}

// CostPerKiB is the pause per KiB of traceback text the next prediction
// uses: the median of the measured costs, or PriorFullCostPerKiB.
func (m *PauseModel) CostPerKiB() time.Duration {
	if m == nil || len(m.samples) == 0 {
		return PriorFullCostPerKiB
	}
	s := make([]time.Duration, len(m.samples))
	for i, p := range m.samples {
		s[i] = p.cost
	}
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// Measured is the number of tracebacks the model has learned from (at most
// the last five count).
func (m *PauseModel) Measured() int {
	if m == nil {
		return 0
	}
	return len(m.samples)
}

// Error is the largest factor by which one of the last five predictions
// fell short of the pause measured after it; 1 when none did.
func (m *PauseModel) Error() float64 {
	e := 1.0
	if m != nil {
		for _, p := range m.samples {
			e = max(e, p.error)
		}
	}
	return e
}

// Predict is the pause of a traceback whose text is predicted to take
// bytes (predictDebug2Size of the counts).
func (m *PauseModel) Predict(bytes int64) time.Duration {
	return time.Duration(float64(bytes) / 1024 * float64(m.CostPerKiB()))
}

// Fits reports whether a traceback predicted to pause for predicted fits
// budget once widened by the model's error.
func (m *PauseModel) Fits(predicted, budget time.Duration) bool {
	return float64(predicted)*m.Error() <= float64(budget)
}

// StallPerGoroutine is what a pid: target's last consistent snapshot
// stalled it per goroutine (goproc.ProcessOptions.StallPerGoroutine); 0
// before one, when goproc predicts from its prior.
func (m *PauseModel) StallPerGoroutine() time.Duration {
	if m == nil {
		return 0
	}
	return m.stall
}

// Learn records what a traceback, or a pid: target's consistent snapshot,
// cost (Document.FullPause).
func (m *PauseModel) Learn(p FullPause) {
	if p.PerGoroutine > 0 {
		m.stall = p.PerGoroutine
		return
	}
	if p.Bytes <= 0 || p.Pause <= 0 {
		return
	}
	s := pauseSample{cost: time.Duration(float64(p.Pause) / (float64(p.Bytes) / 1024)), at: m.ticks}
	if p.Predicted > 0 {
		s.error = float64(p.Pause) / float64(p.Predicted)
	}
	m.samples = append(m.samples, s)
	if len(m.samples) > pauseSamples {
		m.samples = append(m.samples[:0], m.samples[len(m.samples)-pauseSamples:]...)
	}
}

// FullPause is what one traceback cost its target, as far as it could be
// seen ([Document.FullPause]).
type FullPause struct {
	// Bytes is the traceback's size predicted from the counts before it
	// was taken (predictDebug2Size), the unit of the model's cost.
	Bytes int64
	// Predicted is the pause predicted before it was taken.
	Predicted time.Duration
	// Pause is the pause: stackdump's endpoint's own measure when
	// Measured, else debug=2's answer wait (an upper bound).
	Pause    time.Duration
	Measured bool
	// PerGoroutine is, for a pid: target read at one instant, what the
	// stop cost it per goroutine (goproc.ProcessRead.StallPerGoroutine):
	// the next snapshot's prediction is made from it by goproc.
	PerGoroutine time.Duration
}

// methodPause is the predicted pause of one fetch, by Capture.Methods name;
// full is the traceback's prediction (0: none made).
func methodPause(method string, full time.Duration) time.Duration {
	switch method {
	case "debug2":
		return full
	case "trace":
		return TracePause
	case "debug1", "debug0":
		return CountsPause
	}
	return 0
}
