package jsonenc

import (
	"io"
	"strconv"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// WriteGroups writes a grouped stackdump/v1 document: the full
// document's metadata with "groups" in place of "goroutines".
func WriteGroups(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
	if d == nil {
		d = &stack.Dump{}
	}
	total := d.Total
	if total == 0 {
		total = codec.GroupsTotal(groups)
	}
	b := make([]byte, 0, 2*codec.WriteChunkSize)
	b = append(b, `{"format":"`+FormatVersion+`",`...)
	b = appendJSONHead(b, d)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, total, 10)
	b = append(b, `,"groups":[`...)
	for i, g := range groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONGroup(b, g)
		var err error
		if b, err = codec.WriteIfFull(w, b); err != nil {
			return err
		}
	}
	b = append(b, `],"truncated":`...)
	b = strconv.AppendBool(b, d.Truncated)
	b = append(b, `,"warnings":`...)
	b = appendJSONWarnings(b, d.Warnings)
	b = append(b, '}', '\n')
	_, err := w.Write(b)
	return err
}

// appendJSONGroup appends one group object. Its stack carries no
// per-goroutine values: those differ between members.
func appendJSONGroup(b []byte, g *stack.Group) []byte {
	b = append(b, `{"count":`...)
	b = strconv.AppendInt(b, g.Count, 10)
	b = append(b, `,"ids":`...)
	b = appendJSONInts(b, g.IDs)
	if g.MoreIDs != 0 {
		b = append(b, `,"more_ids":`...)
		b = strconv.AppendInt(b, g.MoreIDs, 10)
	}
	b = append(b, `,"states":{`...)
	for i, s := range codec.GroupStates(g) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s.State)
		b = append(b, ':')
		b = strconv.AppendInt(b, s.N, 10)
	}
	b = append(b, '}')
	if g.WaitMax != 0 || g.WaitMin != 0 {
		b = append(b, `,"wait_minutes":{"min":`...)
		b = strconv.AppendInt(b, int64(g.WaitMin), 10)
		b = append(b, `,"max":`...)
		b = strconv.AppendInt(b, int64(g.WaitMax), 10)
		b = append(b, '}')
	}
	if g.Locked != 0 {
		b = append(b, `,"locked":`...)
		b = strconv.AppendInt(b, g.Locked, 10)
	}
	if g.Leaked > 0 {
		b = append(b, `,"leaked":`...)
		b = strconv.AppendInt(b, g.Leaked, 10)
	}
	if len(g.Labels) > 0 {
		b = append(b, `,"labels":[`...)
		for i, lc := range g.Labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"labels":`...)
			b = appendJSONLabels(b, lc.Labels)
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, lc.Count, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(g.ParentIDs) > 0 {
		b = append(b, `,"parent_ids":`...)
		b = appendJSONInts(b, g.ParentIDs)
	}
	if s := g.Sample; s != nil {
		if s.CreatedBy != nil {
			b = append(b, `,"created_by":`...)
			b = appendJSONFrame(b, s.CreatedBy, nil, nil)
		}
		b = appendJSONStack(b, s.Stack, nil, nil)
		if s.Unavailable {
			b = append(b, `,"unavailable":true`...)
		}
		if s.Name != "" {
			b = append(b, `,"name":`...)
			b = appendJSONString(b, s.Name)
		}
	} else {
		b = append(b, `,"stack":[]`...)
	}
	if g.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, g.Key)
	}
	return append(b, '}')
}

func appendJSONInts(b []byte, ns []int64) []byte {
	return appendJSONArray(b, ns, appendJSONInt)
}

func appendJSONInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
