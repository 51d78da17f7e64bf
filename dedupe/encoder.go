package dedupe

import (
	"github.com/stackdump/stackdump/stack"
)

// GroupingEncoder is the grouping stage of a [stack.Pipeline]: a
// stack.Encoder that groups each dump's routines as they stream by, with
// a new [Grouper] per dump. Made by [NewGroupingEncoder] it hands each
// dump and its groups to a writer at EndDump (formats.WriteGroups, for
// one); made by [GroupThrough] it passes every routine on to another
// encoder and keeps the groups for the caller. Either way
// [GroupingEncoder.Groups] returns the groups of the dump last ended.
type GroupingEncoder struct {
	opts  Options
	next  stack.Encoder                           // routines passed on; nil: none
	write func(*stack.Dump, []*stack.Group) error // groups written at EndDump; nil: none

	g      *Grouper // the current dump's
	ended  bool     // g's dump has ended: groups are its groups
	groups []*stack.Group
}

// NewGroupingEncoder returns an Encoder that groups each dump's routines
// with opts and, at EndDump, calls write with the dump and its groups:
//
//	enc := dedupe.NewGroupingEncoder(func(d *stack.Dump, g []*stack.Group) error {
//		return formats.WriteGroups(w, output.JSON, d, g)
//	}, dedupe.Options{By: dedupe.ByStack})
func NewGroupingEncoder(write func(d *stack.Dump, groups []*stack.Group) error, opts Options) *GroupingEncoder {
	return &GroupingEncoder{opts: opts, write: write}
}

// GroupThrough returns an Encoder that groups each routine with opts and
// passes it on to enc, and each dump's BeginDump and EndDump too; enc nil
// groups only.
func GroupThrough(enc stack.Encoder, opts Options) *GroupingEncoder {
	return &GroupingEncoder{opts: opts, next: enc}
}

// BeginDump starts grouping d.
func (e *GroupingEncoder) BeginDump(d *stack.Dump) error {
	e.g, e.ended, e.groups = NewGrouper(e.opts), false, nil
	if e.next != nil {
		return e.next.BeginDump(d)
	}
	return nil
}

// WriteRoutine adds r to its group (the Grouper keeps no reference to
// r) and passes it on.
func (e *GroupingEncoder) WriteRoutine(r *stack.Routine) error {
	e.g.Add(r)
	if e.next != nil {
		return e.next.WriteRoutine(r)
	}
	return nil
}

// EndDump makes d's groups, then writes them or passes EndDump on.
func (e *GroupingEncoder) EndDump(d *stack.Dump) error {
	e.groups, e.ended = e.g.Groups(), true
	if e.write != nil {
		return e.write(d, e.groups)
	}
	if e.next != nil {
		return e.next.EndDump(d)
	}
	return nil
}

// Groups returns the groups of the dump last ended, or, while a dump is
// still being written (a pipeline stopped by an error), of its routines
// so far. It is nil before the first dump.
func (e *GroupingEncoder) Groups() []*stack.Group {
	if !e.ended && e.g != nil {
		return e.g.Groups()
	}
	return e.groups
}

// Total returns the number of routines of the current (or last) dump:
// the sum of their counts, as stack.Dump.Total.
func (e *GroupingEncoder) Total() int64 {
	if e.g == nil {
		return 0
	}
	return e.g.Total()
}
