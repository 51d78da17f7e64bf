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

// writeGroupsDebug1 writes each group as one debug=1 record: its sample
// standing for all members.
func writeGroupsDebug1(w io.Writer, d *Dump, groups []*Group) error {
	enc := newDebug1Encoder(w)
	if err := enc.BeginDump(groupsDump(d, groups)); err != nil {
		return err
	}
	for _, g := range groups {
		r := groupRecord(g)
		if err := enc.WriteRoutine(r); err != nil {
			return err
		}
	}
	return enc.EndDump(groupsDump(d, groups))
}

// groupsDump returns d, or when d is nil a dump standing for the groups.
// Its Total is the groups' total when d has none.
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

// groupRecord is the routine that stands for a whole group in grouped
// formats: the sample with the group's count, and the group's label set
// when all members share one.
func groupRecord(g *Group) *Routine {
	r := &Routine{Stack: &Stack{}}
	if g.Sample != nil {
		*r = *g.Sample
	}
	r.Count = g.Count
	if len(g.Labels) == 1 && g.Labels[0].Count == g.Count {
		r.Labels = g.Labels[0].Labels
	}
	return r
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
