package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

// buildTimeline follows the largest groups over the dumps, in the order
// given: one series per group key with its count in every dump (0 where
// the dump has no such group). Groups are ranked by their largest count
// in any dump, so a group that grows from nothing to the top is followed.
func buildTimeline(all [][]*formats.Group, inputs []Input, n int) *timelineDoc {
	type track struct {
		key    string
		sample *formats.Routine
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
	samples := make([]*formats.Routine, len(tracks))
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

// maxLabelCallers is how many callers a series label names at most to
// tell groups that wait in the same function apart.
const maxLabelCallers = 3

// seriesLabels names groups by the code they wait in: the top frame
// outside the runtime, followed by as many of its callers as it takes to
// tell apart groups waiting in the same function
// ("java.lang.Object.wait ← pool.Worker.run").
func seriesLabels(samples []*formats.Routine) []string {
	labels := make([]string, len(samples))
	for depth := 0; depth <= maxLabelCallers; depth++ {
		seen := make(map[string]int, len(samples))
		for i, r := range samples {
			labels[i] = routineLabel(r, depth)
			seen[labels[i]]++
		}
		dup := false
		for _, n := range seen {
			dup = dup || n > 1
		}
		if !dup {
			break
		}
	}
	return labels
}

// routineLabel is r's top frame outside the runtime and up to callers of
// its callers.
func routineLabel(r *formats.Routine, callers int) string {
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
