package dedupe

import (
	"io"

	"github.com/stackdump/stackdump/formats"
)

// GroupingEncoder is the grouping stage of a [formats.Pipeline]: a
// formats.Encoder that groups each dump's routines as they stream by, with
// a new [Grouper] per dump. Made by [NewGroupingEncoder] it writes each
// dump as its groups (formats.WriteGroups) at EndDump; made by
// [GroupThrough] it passes every routine on to another encoder and keeps
// the groups for the caller. Either way [GroupingEncoder.Groups] returns
// the groups of the dump last ended.
type GroupingEncoder struct {
	opts   Options
	next   formats.Encoder // routines passed on; nil: none
	w      io.Writer       // groups written at EndDump; nil: none
	format formats.Format

	g      *Grouper // the current dump's
	ended  bool     // g's dump has ended: groups are its groups
	groups []*formats.Group
}

// NewGroupingEncoder returns an Encoder that writes each dump to w as its
// groups in format f, grouped with opts. f must be one that
// formats.WriteGroups writes (formats.CanGroup).
func NewGroupingEncoder(w io.Writer, f formats.Format, opts Options) (*GroupingEncoder, error) {
	if !formats.CanGroup(f) {
		// WriteGroups refuses f before it writes anything, with the error
		// that names the formats it writes.
		return nil, formats.WriteGroups(w, f, nil, nil)
	}
	return &GroupingEncoder{opts: opts, w: w, format: f}, nil
}

// GroupThrough returns an Encoder that groups each routine with opts and
// passes it on to enc, and each dump's BeginDump and EndDump too; enc nil
// groups only.
func GroupThrough(enc formats.Encoder, opts Options) *GroupingEncoder {
	return &GroupingEncoder{opts: opts, next: enc}
}

// BeginDump starts grouping d.
func (e *GroupingEncoder) BeginDump(d *formats.Dump) error {
	e.g, e.ended, e.groups = NewGrouper(e.opts), false, nil
	if e.next != nil {
		return e.next.BeginDump(d)
	}
	return nil
}

// WriteRoutine adds r to its group (the Grouper keeps no reference to
// r) and passes it on.
func (e *GroupingEncoder) WriteRoutine(r *formats.Routine) error {
	e.g.Add(r)
	if e.next != nil {
		return e.next.WriteRoutine(r)
	}
	return nil
}

// EndDump makes d's groups, then writes them or passes EndDump on.
func (e *GroupingEncoder) EndDump(d *formats.Dump) error {
	e.groups, e.ended = e.g.Groups(), true
	if e.w != nil {
		return formats.WriteGroups(e.w, e.format, d, e.groups)
	}
	if e.next != nil {
		return e.next.EndDump(d)
	}
	return nil
}

// Groups returns the groups of the dump last ended, or, while a dump is
// still being written (a pipeline stopped by an error), of its routines
// so far. It is nil before the first dump.
func (e *GroupingEncoder) Groups() []*formats.Group {
	if !e.ended && e.g != nil {
		return e.g.Groups()
	}
	return e.groups
}

// Total returns the number of routines of the current (or last) dump:
// the sum of their counts, as formats.Dump.Total.
func (e *GroupingEncoder) Total() int64 {
	if e.g == nil {
		return 0
	}
	return e.g.Total()
}
