package debug1

import (
	"io"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// writeGroupsDebug1 writes the groups as debug=1 records: each group's
// sample standing for its members, one record per label set.
func writeGroupsDebug1(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
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
func groupsDump(d *stack.Dump, groups []*stack.Group) *stack.Dump {
	if d != nil && d.Total != 0 {
		return d
	}
	out := &stack.Dump{}
	if d != nil {
		*out = *d
	}
	out.Total = codec.GroupsTotal(groups)
	return out
}

// groupRecords returns the routines that stand for a group in a counted
// format: its sample, once per label set with that set's count, and once
// without labels for the members that carry none.
func groupRecords(g *stack.Group) []*stack.Routine {
	record := func(labels stack.Labels, n int64) *stack.Routine {
		r := &stack.Routine{Stack: &stack.Stack{}}
		if g.Sample != nil {
			*r = *g.Sample
		}
		r.Count, r.Labels = n, labels
		return r
	}
	var rs []*stack.Routine
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
