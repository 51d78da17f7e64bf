package dumper

import (
	"errors"
	"fmt"

	"github.com/stackdump/stackdump/internal/labelsnap"
	"github.com/stackdump/stackdump/stack"
)

// Labels for trace mode.
//
// pprof labels never reach an execution trace. The runtime's goroutine
// profile has them, per goroutine, without goroutine ids; taken beside
// trace.Stop's walk while the trace still records (trace_stop.go), its
// stacks and label sets are joined to the trace's goroutines by stack
// with the same index full mode uses (labels.go). A stack whose
// goroutines all carry one label set (or none) gives its label set to each
// trace goroutine parked there; a stack shared by goroutines with
// different label sets cannot be split by goroutine, so those goroutines
// are left without labels and counted. Stale goroutines (they ran during
// the window) are left alone: their stack may not be where they are now.
//
// The profile is read with internal/labelsnap, which takes the runtime's
// walk without runtime/pprof's per-goroutine text keys (half the cost at a
// million goroutines), on the Go releases whose layout it knows; elsewhere
// from runtime/pprof's debug=0 profile, as before. When no goroutine has
// labels, that is known from the walk itself (every goroutine's label
// pointer is nil): nothing is symbolized or joined, and the dump says
// labels are not missing.

// traceLabelSet is the outcome of the label snapshot.
type traceLabelSet struct {
	ix  *labelIndex // nil when err
	err error
	// fromPprof says the labels came from runtime/pprof's profile
	// (labelsnap does not know this runtime).
	fromPprof bool
	// skipped says none were taken (CaptureOptions.NoLabels).
	skipped bool
}

// takeTraceLabels takes the goroutine profile's labels: with labelsnap,
// else from runtime/pprof.
func takeTraceLabels() *traceLabelSet {
	s, err := labelsnap.Take(stack.NewTable())
	switch {
	case err == nil && s.Profile == nil:
		return &traceLabelSet{ix: &labelIndex{byKey: make(map[int]map[string]labelEntry)}}
	case err == nil:
		return &traceLabelSet{ix: newLabelIndex(s.Profile)}
	case errors.Is(err, labelsnap.ErrUnsupported):
		ix, err := profileLabels()
		return &traceLabelSet{ix: ix, err: err, fromPprof: true}
	}
	return &traceLabelSet{err: err}
}

// joiner returns the joiner of these labels into routines interned in t
// (one that joins nothing when they could not be taken).
func (s *traceLabelSet) joiner(t *stack.Table) *LabelJoiner {
	ix := s.ix
	if ix == nil {
		ix = &labelIndex{byKey: make(map[int]map[string]labelEntry)}
	}
	return newLabelJoiner(ix, t)
}

// warning says why some or all routines have no labels, or is nil when
// every routine's labels are known.
func (s *traceLabelSet) warning(j *LabelJoiner) *stack.ParseError {
	if s.err != nil {
		return &stack.ParseError{Msg: "pprof labels unavailable: " + s.err.Error(), Err: s.err}
	}
	return j.Warning()
}

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
	if !j.joins(r.Stack, r.Stale) {
		return
	}
	res := j.result(r.Stack)
	j.count(res)
	if !res.ambiguous && res.labels != nil {
		r.Labels = res.labels
	}
}

// joins reports whether a routine on st is joined at all: not when no
// goroutine has labels, when it is stale, or when it has no frames.
func (j *LabelJoiner) joins(st *stack.Stack, stale bool) bool {
	return j.ix.any && !stale && st != nil && len(st.Frames) > 0
}

// result returns what the profile says about st, looked up once per
// stack.
func (j *LabelJoiner) result(st *stack.Stack) labelResult {
	res, done := j.byStack[st]
	if done {
		return res
	}
	var e labelEntry
	var ok bool
	if e, ok, j.k = j.ix.lookup(st, j.k); ok {
		res.ambiguous = e.ambiguous
		if len(e.labels) > 0 {
			res.labels = j.t.Labels(append(stack.Labels(nil), e.labels...))
		}
	}
	j.byStack[st] = res
	if res.ambiguous {
		j.join.stacks++
	}
	return res
}

// count records the outcome of one routine's join.
func (j *LabelJoiner) count(res labelResult) {
	switch {
	case res.ambiguous:
		j.join.ambiguous++
	case res.labels != nil:
		j.join.labelled++
	}
}

// settle counts the join of a routine on st (stale or not) without
// labelling it, so that the outcome is known before the routines are
// made; label then labels them without counting again.
func (j *LabelJoiner) settle(st *stack.Stack, stale bool) {
	if j.joins(st, stale) {
		j.count(j.result(st))
	}
}

// label gives r its labels as settle counted them.
func (j *LabelJoiner) label(r *stack.Routine) {
	if !j.joins(r.Stack, r.Stale) {
		return
	}
	if res := j.result(r.Stack); !res.ambiguous && res.labels != nil {
		r.Labels = res.labels
	}
}

// Labelled returns how many routines Apply gave labels.
func (j *LabelJoiner) Labelled() int { return j.join.labelled }

// Warning describes the routines whose labels stayed unknown (their stack
// has several label sets in the profile), or is nil when there were none.
func (j *LabelJoiner) Warning() *stack.ParseError { return j.join.warning() }

// warning describes the goroutines the join could not label, or is nil.
func (j labelJoin) warning() *stack.ParseError {
	if j.ambiguous == 0 {
		return nil
	}
	return &stack.ParseError{Msg: fmt.Sprintf(
		"pprof labels of %d goroutines on %d stack(s) are unknown: the goroutine profile shows several label sets for each of those stacks, and a trace cannot say which goroutine has which",
		j.ambiguous, j.stacks)}
}
