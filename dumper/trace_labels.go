package dumper

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/formats"
)

// Labels for trace mode.
//
// pprof labels never reach an execution trace. The goroutine profile
// (debug=0) has them, per distinct stack and label set, without goroutine
// ids; taken right after the trace, it is joined to the trace's goroutines
// by stack. A stack whose goroutines all carry one label set (or none)
// gives its label set to each trace goroutine parked there; a stack shared
// by goroutines with different label sets cannot be split by goroutine, so
// those goroutines are left without labels and counted.

// labelKeyFrames is how many innermost frames identify a stack in the
// join: the profile and the trace both keep the innermost frames of deep
// stacks, but cut them at different depths.
const labelKeyFrames = 64

// labelJoin is the outcome of joining profile labels to a trace dump.
type labelJoin struct {
	labelled  int // routines given labels
	ambiguous int // routines whose stack has several label sets
}

// joinLabels sets the Labels of d's routines from the goroutine profile
// prof, interning them into t, the Table d was read with. (prof is read
// with a Table of its own, so that its stacks, runtime frames included,
// do not land in t.)
func joinLabels(d, prof *formats.Dump, t *formats.Table) labelJoin {
	type entry struct {
		labels formats.Labels
		mixed  bool
	}
	var j labelJoin
	if !slices.ContainsFunc(prof.Routines, func(r *formats.Routine) bool { return len(r.Labels) > 0 }) {
		return j // no goroutine has labels: nothing to join
	}
	byStack := make(map[string]*entry)
	var key []byte
	for _, r := range prof.Routines {
		key = labelKey(key[:0], r.Frames())
		e, ok := byStack[string(key)]
		switch {
		case !ok:
			byStack[string(key)] = &entry{labels: t.Labels(slices.Clone(r.Labels))}
		case !slices.Equal(e.labels, r.Labels):
			e.mixed = true
		}
	}
	// Trace routines share interned stacks: look each stack up once.
	memo := make(map[*formats.Stack]*entry)
	for _, r := range d.Routines {
		if r.Stale || len(r.Frames()) == 0 {
			continue
		}
		e, ok := memo[r.Stack]
		if !ok {
			key = labelKey(key[:0], r.Frames())
			e = byStack[string(key)]
			memo[r.Stack] = e
		}
		switch {
		case e == nil:
		case e.mixed:
			j.ambiguous++
		case e.labels != nil:
			r.Labels = e.labels
			j.labelled++
		}
	}
	return j
}

// labelKey appends the identity of a stack for the join: function, file
// and line of its innermost frames that a debug=2 dump shows (the profile
// also has the runtime's internal frames, the trace dump does not).
func labelKey(b []byte, frames []*formats.Frame) []byte {
	n := 0
	for _, f := range frames {
		if n == labelKeyFrames {
			break
		}
		if hiddenRuntimeFrame(f.Func) {
			continue
		}
		b = append(b, f.Func...)
		b = append(b, ' ')
		b = append(b, f.File...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.Line), 10)
		b = append(b, '\n')
		n++
	}
	return b
}

// hiddenRuntimeFrame reports whether debug=2 leaves a frame of fn out:
// unexported functions of package runtime.
func hiddenRuntimeFrame(fn string) bool {
	rest, ok := strings.CutPrefix(fn, "runtime.")
	return ok && (rest == "" || rest[0] < 'A' || rest[0] > 'Z')
}

// readProfile reads a goroutine profile (debug=0) recorded with the trace.
func readProfile(prof []byte) (*formats.Dump, error) {
	dumps, err := formats.ReadAll(bytes.NewReader(prof), formats.ReadOptions{Kind: formats.KindGoPprof})
	if err != nil {
		return nil, err
	}
	if len(dumps) != 1 {
		return nil, fmt.Errorf("%d dumps in a goroutine profile, want 1", len(dumps))
	}
	return dumps[0], nil
}
