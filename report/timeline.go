package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// buildTimeline follows the largest groups over the dumps, in the order
// given: one series per group key with its count in every dump (0 where
// the dump has no such group). Groups are ranked by their largest count
// in any dump, so a group that grows from nothing to the top is followed.
func buildTimeline(all [][]*stack.Group, inputs []Input, n int) *timelineDoc {
	type track struct {
		key    string
		sample *stack.Routine
		counts []int64
		peak   int64
	}
	byKey := make(map[string]*track)
	var tracks []*track
	tl := &timelineDoc{Totals: make([]int64, len(all))}
	for i, groups := range all {
		var sum int64
		for _, g := range groups {
			sum += g.Count
			t := byKey[g.Key]
			if t == nil {
				t = &track{key: g.Key, sample: g.Sample, counts: make([]int64, len(all))}
				byKey[g.Key] = t
				tracks = append(tracks, t)
			}
			t.counts[i] += g.Count
			t.peak = max(t.peak, t.counts[i])
		}
		tl.Totals[i] = inputs[i].Dump.Total
		if tl.Totals[i] == 0 {
			tl.Totals[i] = sum
		}
	}
	slices.SortFunc(tracks, func(a, b *track) int {
		if c := cmp.Compare(b.peak, a.peak); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	tracks = tracks[:min(n, len(tracks))]
	samples := make([]*stack.Routine, len(tracks))
	for i, t := range tracks {
		samples[i] = t.sample
	}
	labels := seriesLabels(samples)
	tl.Series = make([]seriesDoc, len(tracks))
	for i, t := range tracks {
		tl.Series[i] = seriesDoc{Key: t.key, Label: labels[i], Counts: t.counts}
	}
	return tl
}

// maxLabelSteps bounds how many differing frames a series label adds.
const maxLabelSteps = 4

// seriesLabels names groups by the code they wait in: the top frame
// outside the runtime. Groups that share it are told apart by the first
// frame below it that differs between them ("main.worker ← … ←
// main.startB"), with its file and line when only the line differs, step
// by step until every label is distinct (or maxLabelSteps).
func seriesLabels(samples []*stack.Routine) []string {
	labels := make([]string, len(samples))
	at := make([]int, len(samples)) // index in the stack of the frame named last
	for i, r := range samples {
		labels[i] = routineLabel(r, 0)
		at[i] = topIndex(r)
	}
	for step := 0; step < maxLabelSteps; step++ {
		clusters := make(map[string][]int)
		for i, l := range labels {
			clusters[l] = append(clusters[l], i)
		}
		dup := false
		for _, members := range clusters {
			if len(members) < 2 {
				continue
			}
			dup = true
			tellApart(samples, members, labels, at)
		}
		if !dup {
			break
		}
	}
	return labels
}

// topIndex is the index of r's top frame outside the runtime; -1 when
// it has none.
func topIndex(r *stack.Routine) int {
	if r == nil || r.Stack == nil {
		return -1
	}
	top := dedupe.TopFrame(r.Stack)
	if top == nil {
		return -1
	}
	return slices.Index(r.Stack.Frames, top)
}

// tellApart extends the labels of members, which are equal, with the
// first frame below at[m] where their stacks differ.
func tellApart(samples []*stack.Routine, members []int, labels []string, at []int) {
	frameAt := func(m, d int) *stack.Frame {
		r := samples[m]
		if r == nil || r.Stack == nil || d < 0 || d >= len(r.Stack.Frames) {
			return nil
		}
		return r.Stack.Frames[d]
	}
	start := at[members[0]] + 1
	for d := start; d < start+256; d++ {
		first := frameAt(members[0], d)
		same, funcsSame, anyFrame := true, true, first != nil
		for _, m := range members[1:] {
			f := frameAt(m, d)
			anyFrame = anyFrame || f != nil
			if f != first {
				same = false
				if f == nil || first == nil || f.Func != first.Func {
					funcsSame = false
				}
			}
		}
		if !anyFrame {
			return // identical to the end: nothing tells them apart
		}
		if same {
			continue
		}
		for _, m := range members {
			part := " ← "
			if d > at[m]+1 {
				part += "… ← "
			}
			f := frameAt(m, d)
			switch {
			case f == nil:
				part += "(end of stack)"
			case funcsSame || sharesFunc(samples, members, m, d, f):
				part += shortFunc(f.Func) + " (" + baseFile(f.File) + ":" + strconv.Itoa(f.Line) + ")"
			default:
				part += shortFunc(f.Func)
			}
			labels[m] += part
			at[m] = d
		}
		return
	}
}

// sharesFunc reports whether another member has f's function at depth d.
func sharesFunc(samples []*stack.Routine, members []int, self, d int, f *stack.Frame) bool {
	for _, m := range members {
		if m == self || samples[m] == nil || samples[m].Stack == nil || d >= len(samples[m].Stack.Frames) {
			continue
		}
		if g := samples[m].Stack.Frames[d]; g != f && g.Func == f.Func {
			return true
		}
	}
	return false
}

func baseFile(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// routineLabel is r's top frame outside the runtime and up to callers of
// its callers.
func routineLabel(r *stack.Routine, callers int) string {
	if r == nil {
		return "(no sample)"
	}
	top := dedupe.TopFrame(r.Stack)
	if top == nil {
		if r.Unavailable {
			return "(stack unavailable)"
		}
		return "(no frames)"
	}
	frames := r.Stack.Frames
	at := slices.Index(frames, top)
	label := top.Func
	for _, f := range frames[at+1 : min(len(frames), at+1+callers)] {
		label += " ← " + shortFunc(f.Func)
	}
	return label
}

// shortFunc drops a function's import path: "http.(*conn).serve".
func shortFunc(fn string) string {
	end := strings.IndexByte(fn, '[')
	if end < 0 {
		end = len(fn)
	}
	return fn[strings.LastIndexByte(fn[:end], '/')+1:]
}
