package formats

import (
	"fmt"
	"io"
	"sort"
)

// WriteGroups writes a grouped dump (groups built by package dedupe, in
// the order given) in format f:
//
//   - FormatText: a readable summary, one block per group: a header with
//     the count, states, wait times, locking and creator, the member ids,
//     label sets, then the representative stack once.
//   - FormatJSON: a stackdump/v1 grouped document (docs/json.md), which
//     the JSON reader reads back.
//   - FormatDebug1: /debug/pprof/goroutine?debug=1 text, one record per
//     group.
//
// Other formats cannot hold groups and return an error. w should be
// buffered (an [Output]); WriteGroups writes in large chunks and does not
// flush it.
func WriteGroups(w io.Writer, f Format, d *Dump, groups []*Group) error {
	switch f {
	case FormatText:
		return writeGroupsText(w, d, groups)
	case FormatJSON:
		return writeGroupsJSON(w, d, groups)
	case FormatDebug1:
		return writeGroupsDebug1(w, d, groups)
	}
	return fmt.Errorf("grouped output cannot be written as %q (want %s, %s or %s)", f, FormatText, FormatJSON, FormatDebug1)
}

// writeGroupsDebug1 writes the groups as debug=1 records: each group's
// sample standing for its members, one record per label set.
func writeGroupsDebug1(w io.Writer, d *Dump, groups []*Group) error {
	enc := newDebug1Encoder(w)
	dump := groupsDump(d, groups)
	if err := enc.BeginDump(dump); err != nil {
		return err
	}
	for _, g := range groups {
		for _, r := range groupRecords(g) {
			if err := enc.WriteRoutine(r); err != nil {
				return err
			}
		}
	}
	return enc.EndDump(dump)
}

// groupsDump returns d, or when d is nil or has no Total, a copy standing
// for the groups' total.
func groupsDump(d *Dump, groups []*Group) *Dump {
	if d != nil && d.Total != 0 {
		return d
	}
	out := &Dump{}
	if d != nil {
		*out = *d
	}
	out.Total = groupsTotal(groups)
	return out
}

// groupRecords returns the routines that stand for a group in a counted
// format: its sample, once per label set with that set's count, and once
// without labels for the members that carry none.
func groupRecords(g *Group) []*Routine {
	record := func(labels Labels, n int64) *Routine {
		r := &Routine{Stack: &Stack{}}
		if g.Sample != nil {
			*r = *g.Sample
		}
		r.Count, r.Labels = n, labels
		return r
	}
	var rs []*Routine
	left := g.Count
	for _, lc := range g.Labels {
		if lc.Count > 0 {
			rs = append(rs, record(lc.Labels, lc.Count))
			left -= lc.Count
		}
	}
	if left > 0 || len(rs) == 0 {
		rs = append(rs, record(nil, max(left, 0)))
	}
	return rs
}

func groupsTotal(groups []*Group) int64 {
	var n int64
	for _, g := range groups {
		n += g.Count
	}
	return n
}

// groupStateCount is one entry of a group's state histogram.
type groupStateCount struct {
	state string
	n     int64
}

// groupStates returns a group's states, most common first, then by name.
func groupStates(g *Group) []groupStateCount {
	sc := make([]groupStateCount, 0, len(g.States))
	for s, n := range g.States {
		sc = append(sc, groupStateCount{s, n})
	}
	sort.Slice(sc, func(i, j int) bool {
		if sc[i].n != sc[j].n {
			return sc[i].n > sc[j].n
		}
		return sc[i].state < sc[j].state
	})
	return sc
}
