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
		label  string
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
				t = &track{key: g.Key, label: groupLabel(g), counts: make([]int64, len(all))}
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
	tl.Series = []seriesDoc{}
	for _, t := range tracks[:min(n, len(tracks))] {
		tl.Series = append(tl.Series, seriesDoc{Key: t.key, Label: t.label, Counts: t.counts})
	}
	return tl
}

// groupLabel names a group by the code it waits in: its top frame outside
// the runtime.
func groupLabel(g *formats.Group) string {
	if g.Sample == nil {
		return g.Key
	}
	f := dedupe.TopFrame(g.Sample.Stack)
	if f == nil {
		if g.Sample.Unavailable {
			return "(stack unavailable)"
		}
		return "(no frames)"
	}
	return f.Func
}
