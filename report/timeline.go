package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/analyze"
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
	keys := make([]string, len(tracks))
	for i, t := range tracks {
		keys[i] = t.key
	}
	labels := seriesLabels(samples, keys)
	tl.Series = make([]seriesDoc, len(tracks))
	for i, t := range tracks {
		tl.Series[i] = seriesDoc{Key: t.key, Label: labels[i], Counts: t.counts}
	}
	return tl
}

// maxLabelSteps bounds how many differing frames a series label adds.
const maxLabelSteps = 4

// seriesLabels names groups by the code they wait in: the top frame
// outside the runtime. Groups that share its function are told apart by
// its file and line when those differ, then by the first frame below it
// that differs between them ("main.worker ← … ← main.startB"), with its
// file and line when only the line differs, step by step (maxLabelSteps).
// Labels that are still alike (stacks alike to their end: groups split by
// state, creator or arguments) get the creator, then the state, then the
// group key: every label is distinct.
func seriesLabels(samples []*stack.Routine, keys []string) []string {
	labels := make([]string, len(samples))
	at := make([]int, len(samples)) // index in the stack of the frame named last
	for i, r := range samples {
		labels[i] = routineLabel(r, 0)
		at[i] = topIndex(r)
	}
	eachDuplicate(labels, func(members []int) { tellTopApart(samples, members, labels) })
	for step := 0; step < maxLabelSteps; step++ {
		if !eachDuplicate(labels, func(members []int) { tellApart(samples, members, labels, at) }) {
			break
		}
	}
	eachDuplicate(labels, func(members []int) {
		tellBy(members, labels, func(m int) string {
			if r := samples[m]; r != nil && r.CreatedBy != nil {
				return " (created by " + shortFunc(r.CreatedBy.Func) + ")"
			}
			return ""
		})
	})
	eachDuplicate(labels, func(members []int) {
		tellBy(members, labels, func(m int) string {
			if r := samples[m]; r != nil && r.State != "" {
				return " [" + r.State + "]"
			}
			return ""
		})
	})
	eachDuplicate(labels, func(members []int) {
		for _, m := range members {
			labels[m] += " #" + keys[m][:min(8, len(keys[m]))]
		}
	})
	eachDuplicate(labels, func(members []int) { // keys that share 8 digits
		for _, m := range members {
			labels[m] += keys[m][min(8, len(keys[m])):]
		}
	})
	return labels
}

// eachDuplicate calls fn with each set of indexes whose labels are equal,
// in the order of their first member, and reports whether there was one.
func eachDuplicate(labels []string, fn func(members []int)) bool {
	clusters := make(map[string][]int)
	var order []string
	for i, l := range labels {
		if clusters[l] == nil {
			order = append(order, l)
		}
		clusters[l] = append(clusters[l], i)
	}
	dup := false
	for _, l := range order {
		if members := clusters[l]; len(members) > 1 {
			dup = true
			fn(members)
		}
	}
	return dup
}

// tellBy adds part(m) to the labels of members when the parts differ.
func tellBy(members []int, labels []string, part func(m int) string) {
	first := part(members[0])
	for _, m := range members[1:] {
		if part(m) != first {
			for _, m := range members {
				labels[m] += part(m)
			}
			return
		}
	}
}

// tellTopApart adds the naming frame's file and line to the labels of
// members, which are equal, when those differ between them (one function
// blocked at two lines).
func tellTopApart(samples []*stack.Routine, members []int, labels []string) {
	tellBy(members, labels, func(m int) string {
		r := samples[m]
		if r == nil {
			return ""
		}
		if top := dedupe.NameFrame(r.Stack); top != nil {
			return " (" + baseFile(top.File) + ":" + strconv.Itoa(top.Line) + ")"
		}
		return ""
	})
}

// sameFrame compares frames by what they say: dumps read with different
// Tables have different pointers for the same frame.
func sameFrame(a, b *stack.Frame) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.Func == b.Func && a.File == b.File && a.Line == b.Line
}

// topIndex is the index of the frame that names r (dedupe.NameFrame);
// -1 when it has none.
func topIndex(r *stack.Routine) int {
	if r == nil || r.Stack == nil {
		return -1
	}
	top := dedupe.NameFrame(r.Stack)
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
			if !sameFrame(f, first) {
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
		if g := samples[m].Stack.Frames[d]; !sameFrame(g, f) && g.Func == f.Func {
			return true
		}
	}
	return false
}

func baseFile(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// routineLabel is the frame that names r (dedupe.NameFrame) and up to
// callers of its callers.
func routineLabel(r *stack.Routine, callers int) string {
	if r == nil {
		return "(no sample)"
	}
	top := dedupe.NameFrame(r.Stack)
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

// shortFunc drops a function's import path: "http.(*conn).serve"; a JVM
// hidden class keeps its class name ("Foo$$Lambda$14.run" for
// "Foo$$Lambda$14/0x0000000800c03000.run").
func shortFunc(fn string) string {
	fn = analyze.JVMHiddenClass(fn)
	end := strings.IndexByte(fn, '[')
	if end < 0 {
		end = len(fn)
	}
	return fn[strings.LastIndexByte(fn[:end], '/')+1:]
}
