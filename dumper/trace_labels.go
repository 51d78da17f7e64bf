package dumper

import (
	"fmt"

	"github.com/stackdump/stackdump/formats"
)

// Labels for trace mode.
//
// pprof labels never reach an execution trace. The goroutine profile
// (debug=0) has them, per distinct stack and label set, without goroutine
// ids; taken right after the trace, it is joined to the trace's goroutines
// by stack with the same index full mode uses (labels.go). A stack whose
// goroutines all carry one label set (or none) gives its label set to each
// trace goroutine parked there; a stack shared by goroutines with
// different label sets cannot be split by goroutine, so those goroutines
// are left without labels and counted. Stale goroutines (they ran during
// the window) are left alone: their stack may not be where they are now.

// labelJoin is the outcome of joining profile labels to a trace dump.
type labelJoin struct {
	labelled  int // routines given labels
	ambiguous int // routines whose stack has several label sets
	stacks    int // distinct stacks of the ambiguous routines
}

// joinTraceLabels sets the Labels of d's routines from the profile index,
// interning them into t, the Table d was read with.
func joinTraceLabels(d *formats.Dump, ix *labelIndex, t *formats.Table) labelJoin {
	var j labelJoin
	if !ix.any {
		return j // no goroutine has labels: nothing to join
	}
	type result struct {
		labels    formats.Labels
		ambiguous bool
	}
	byStack := make(map[*formats.Stack]result) // trace routines share interned stacks
	var k []byte
	for _, r := range d.Routines {
		if r.Stale || len(r.Frames()) == 0 {
			continue
		}
		res, done := byStack[r.Stack]
		if !done {
			var e labelEntry
			var ok bool
			if e, ok, k = ix.lookup(r.Stack, k); ok {
				res.ambiguous = e.ambiguous
				if len(e.labels) > 0 {
					res.labels = t.Labels(append(formats.Labels(nil), e.labels...))
				}
			}
			byStack[r.Stack] = res
			if res.ambiguous {
				j.stacks++
			}
		}
		switch {
		case res.ambiguous:
			j.ambiguous++
		case res.labels != nil:
			r.Labels = res.labels
			j.labelled++
		}
	}
	return j
}

// warning describes the goroutines the join could not label, or is nil.
func (j labelJoin) warning() *formats.ParseError {
	if j.ambiguous == 0 {
		return nil
	}
	return &formats.ParseError{Msg: fmt.Sprintf(
		"pprof labels of %d goroutines on %d stack(s) are unknown: the goroutine profile shows several label sets for each of those stacks, and a trace cannot say which goroutine has which",
		j.ambiguous, j.stacks)}
}
