package dumper

import (
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// Labels for trace mode.
//
// pprof labels never reach an execution trace. The goroutine profile
// (debug=0, or debug=1 from another process) has them, per distinct stack
// and label set, without goroutine ids; taken right after the trace, it is
// joined to the trace's goroutines by stack with the same index full mode
// uses (labels.go). A stack whose goroutines all carry one label set (or
// none) gives its label set to each trace goroutine parked there; a stack
// shared by goroutines with different label sets cannot be split by
// goroutine, so those goroutines are left without labels and counted.
// Stale goroutines (they ran during the window) are left alone: their stack
// may not be where they are now.

// LabelJoiner gives the routines of an execution-trace dump the pprof
// labels a goroutine profile shows for their stacks, one routine at a time
// as they are read. remote uses it to join debug=1's labels to a trace
// snapshot of another process; trace mode uses it with its own profile.
type LabelJoiner struct {
	ix      *labelIndex
	t       *stack.Table
	byStack map[*stack.Stack]labelResult // trace routines share interned stacks
	k       []byte
	join    labelJoin
}

// labelResult is what the profile says about one trace stack.
type labelResult struct {
	labels    stack.Labels
	ambiguous bool
}

// labelJoin is the outcome of joining profile labels to a trace dump.
type labelJoin struct {
	labelled  int // routines given labels
	ambiguous int // routines whose stack has several label sets
	stacks    int // distinct stacks of the ambiguous routines
}

// NewLabelJoiner indexes the labels of profile, a goroutine profile read
// into a Dump with its Routines (debug=0 or debug=1: one counted record per
// stack and label set). Labels given to routines are interned into t, the
// Table the trace is read with.
func NewLabelJoiner(profile *stack.Dump, t *stack.Table) *LabelJoiner {
	return newLabelJoiner(newLabelIndex(profile), t)
}

func newLabelJoiner(ix *labelIndex, t *stack.Table) *LabelJoiner {
	return &LabelJoiner{ix: ix, t: t, byStack: make(map[*stack.Stack]labelResult)}
}

// Apply sets r's labels from the profile when r's stack has exactly one
// label set there; stale routines and routines without frames are left
// alone.
func (j *LabelJoiner) Apply(r *stack.Routine) {
	if !j.ix.any || r.Stale || len(r.Frames()) == 0 {
		return // no goroutine has labels, or nothing to match
	}
	res, done := j.byStack[r.Stack]
	if !done {
		var e labelEntry
		var ok bool
		if e, ok, j.k = j.ix.lookup(r.Stack, j.k); ok {
			res.ambiguous = e.ambiguous
			if len(e.labels) > 0 {
				res.labels = j.t.Labels(append(stack.Labels(nil), e.labels...))
			}
		}
		j.byStack[r.Stack] = res
		if res.ambiguous {
			j.join.stacks++
		}
	}
	switch {
	case res.ambiguous:
		j.join.ambiguous++
	case res.labels != nil:
		r.Labels = res.labels
		j.join.labelled++
	}
}

// Labelled returns how many routines Apply gave labels.
func (j *LabelJoiner) Labelled() int { return j.join.labelled }

// Warning describes the routines whose labels stayed unknown (their stack
// has several label sets in the profile), or is nil when there were none.
func (j *LabelJoiner) Warning() *stack.ParseError { return j.join.warning() }

// joinTraceLabels sets the Labels of d's routines from the profile index,
// interning them into t, the Table d was read with.
func joinTraceLabels(d *stack.Dump, ix *labelIndex, t *stack.Table) labelJoin {
	j := newLabelJoiner(ix, t)
	for _, r := range d.Routines {
		j.Apply(r)
	}
	return j.join
}

// warning describes the goroutines the join could not label, or is nil.
func (j labelJoin) warning() *stack.ParseError {
	if j.ambiguous == 0 {
		return nil
	}
	return &stack.ParseError{Msg: fmt.Sprintf(
		"pprof labels of %d goroutines on %d stack(s) are unknown: the goroutine profile shows several label sets for each of those stacks, and a trace cannot say which goroutine has which",
		j.ambiguous, j.stacks)}
}
