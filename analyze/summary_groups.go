package analyze

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// stateTotals sums the groups' states, most common first, and their
// locked members.
func stateTotals(groups []*stack.Group) ([]StateCount, int64) {
	sum := make(map[string]int64)
	var locked int64
	for _, g := range groups {
		for s, n := range g.States {
			sum[s] += n
		}
		locked += g.Locked
	}
	out := make([]StateCount, 0, len(sum))
	for s, n := range sum {
		out = append(out, StateCount{State: s, Count: n})
	}
	slices.SortFunc(out, func(a, b StateCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.State, b.State))
	})
	return out, locked
}

// stateSum adds up state counts.
func stateSum(states []StateCount) int64 {
	var n int64
	for _, s := range states {
		n += s.Count
	}
	return n
}

// topGroups returns the n largest groups; groups come sorted by count.
func topGroups(groups []*stack.Group, n int) []GroupRow {
	rows := make([]GroupRow, 0, min(n, len(groups)))
	for _, g := range groups[:min(n, len(groups))] {
		rows = append(rows, groupRow(g))
	}
	return rows
}

// longestWaits returns the n groups whose members waited longest: by
// WaitMax, then by size. Groups whose members waited under a minute are
// left out.
func longestWaits(groups []*stack.Group, n int) []GroupRow {
	var waiting []*stack.Group
	for _, g := range groups {
		if g.WaitMax > 0 {
			waiting = append(waiting, g)
		}
	}
	slices.SortStableFunc(waiting, func(a, b *stack.Group) int {
		return cmp.Or(cmp.Compare(b.WaitMax, a.WaitMax), cmp.Compare(b.Count, a.Count))
	})
	return topGroups(waiting, n)
}

// groupRow describes g.
func groupRow(g *stack.Group) GroupRow {
	row := GroupRow{
		Key:     g.Key,
		Count:   g.Count,
		State:   dedupe.MainState(g),
		WaitMin: g.WaitMin,
		WaitMax: g.WaitMax,
		IDs:     g.IDs[:min(len(g.IDs), maxRowIDs)],
	}
	if len(g.States) > 1 || len(g.States) == 1 && row.State == "" {
		// Several states, or one that only some members have (the rest
		// have none): State alone would not say it.
		row.States = maps.Clone(g.States)
	}
	if g.Sample != nil {
		p := dedupe.PlaceOf(g.Sample.Stack)
		row.Frame, row.Wait = frameRef(p.Frame), frameRef(p.Wait)
		row.CreatedBy = frameRef(g.Sample.CreatedBy)
	}
	if len(g.Labels) > 0 {
		row.Labels = labelMap(g.Labels[0].Labels)
	}
	return row
}

func labelMap(ls stack.Labels) map[string]string {
	if len(ls) == 0 {
		return nil
	}
	m := make(map[string]string, len(ls))
	for _, l := range ls {
		m[l.Key] = l.Value
	}
	return m
}

// frameRef names f; nil for a nil frame.
func frameRef(f *stack.Frame) *FrameRef {
	if f == nil {
		return nil
	}
	return &FrameRef{Func: f.Func, File: f.File, Line: f.Line}
}

// String is "func (file.go:line)", or the function alone when the file is
// unknown.
func (f FrameRef) String() string {
	if f.File == "" {
		return f.Func
	}
	return f.Func + " (" + f.Location() + ")"
}

// Location is "file.go:line": the file's base name and the line.
func (f FrameRef) Location() string {
	file := f.File
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		file = file[i+1:]
	}
	if f.Line == 0 {
		return file
	}
	return file + ":" + itoa(int64(f.Line))
}

// WhereFrame is where a routine of stack s is, as analyze and report
// name it: dedupe.NameFrame, the one naming rule of every group.
func WhereFrame(s *stack.Stack) *stack.Frame { return whereFrame(s) }

// whereFrame is dedupe.NameFrame: the first frame of the program's code
// or its libraries, past the runtime's and the standard library's
// waiting primitives (dedupe.PlaceOf).
func whereFrame(s *stack.Stack) *stack.Frame { return dedupe.NameFrame(s) }
