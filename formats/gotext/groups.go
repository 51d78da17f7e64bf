package gotext

import (
	"io"
	"strconv"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// writeGroupsText writes groups as readable text:
//
//	1290 goroutines in 2 groups
//
//	1234 goroutines [chan receive: 1200, select: 34, 3~17 minutes] created by main.startWorkers in goroutine 1
//	ids 5, 7, 9-120, 200, … (+1100 more)
//	labels {svc: users}: 1200, {svc: admin}: 34
//	main.worker(...)
//		/src/x.go:12 +0x1d
//	...
//
// A group of one shows its sample's arguments; larger groups show (...),
// as members' arguments differ.
func writeGroupsText(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
	if d == nil {
		d = &stack.Dump{}
	}
	noun := "goroutine"
	if d.Source.Kind == stack.KindJVMText || d.Source.Kind == stack.KindJVMJSON {
		noun = "thread"
	}
	total := codec.GroupsTotal(groups)
	b := make([]byte, 0, 2*codec.WriteChunkSize)
	b = appendGroupCounted(b, total, noun)
	b = append(b, " in "...)
	b = appendGroupCounted(b, int64(len(groups)), "group")
	if d.Total > total {
		b = append(b, " (of "...)
		b = strconv.AppendInt(b, d.Total, 10)
		b = append(b, " in the dump)"...)
	}
	if src := d.Source; src.Runtime != "" || src.Target != "" {
		b = append(b, ", "...)
		b = append(b, src.Runtime...)
		if src.Runtime != "" && src.Target != "" {
			b = append(b, ", "...)
		}
		b = append(b, src.Target...)
	}
	b = append(b, '\n')
	if d.Truncated {
		b = append(b, "warning: the dump is truncated; counts are lower bounds\n"...)
	}
	if n := len(d.Warnings); n > 0 {
		b = append(b, "warning: "...)
		b = appendGroupCounted(b, int64(n), "part")
		b = append(b, " of the input could not be read; first: "...)
		b = append(b, d.Warnings[0].Error()...)
		b = append(b, '\n')
	}
	for _, line := range d.Preamble {
		b = append(b, line...)
		b = append(b, '\n')
	}
	for _, g := range groups {
		b = append(b, '\n')
		b = appendGroupText(b, g, noun)
		var err error
		if b, err = codec.WriteIfFull(w, b); err != nil {
			return err
		}
	}
	_, err := w.Write(b)
	return err
}

// appendGroupCounted appends "1 goroutine" or "N goroutines".
func appendGroupCounted(b []byte, n int64, noun string) []byte {
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// appendGroupText appends one group: header, ids, labels, stack.
func appendGroupText(b []byte, g *stack.Group, noun string) []byte {
	s := g.Sample
	if s == nil {
		s = &stack.Routine{}
	}
	b = appendGroupCounted(b, g.Count, noun)
	if g.Count == 1 && s.Name != "" {
		// A JVM thread alone: its name is what names it.
		b = append(b, ' ')
		b = strconv.AppendQuote(b, s.Name)
	}
	b = append(b, " ["...)
	states := codec.GroupStates(g)
	var stated int64
	for _, st := range states {
		stated += st.N
	}
	if len(states) > 1 || len(states) == 1 && stated < g.Count {
		for i, st := range states {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, st.State...)
			b = append(b, ": "...)
			b = strconv.AppendInt(b, st.N, 10)
		}
		if stated < g.Count {
			// Members without a state (a JDK 5 thread, a debug=1
			// record) are counted, not given the others' state.
			b = append(b, ", no state: "...)
			b = strconv.AppendInt(b, g.Count-stated, 10)
		}
	} else if len(states) == 1 {
		b = append(b, states[0].State...)
	} else if s.State != "" {
		b = append(b, s.State...)
	} else {
		b = append(b, "no state"...)
	}
	if g.WaitMax > 0 {
		b = append(b, ", "...)
		if g.WaitMin != g.WaitMax {
			b = strconv.AppendInt(b, int64(g.WaitMin), 10)
			b = append(b, '~')
		}
		b = strconv.AppendInt(b, int64(g.WaitMax), 10)
		b = append(b, " minutes"...)
	}
	switch {
	case g.Locked >= g.Count && g.Locked > 0:
		b = append(b, ", locked to thread"...)
	case g.Locked > 0:
		b = append(b, ", "...)
		b = strconv.AppendInt(b, g.Locked, 10)
		b = append(b, " locked to thread"...)
	}
	b = append(b, ']')
	if s.CreatedBy != nil {
		b = append(b, " created by "...)
		b = append(b, s.CreatedBy.Func...)
		switch len(g.ParentIDs) {
		case 0:
		case 1:
			b = append(b, " in goroutine "...)
			b = strconv.AppendInt(b, g.ParentIDs[0], 10)
		default:
			b = append(b, " in goroutines "...)
			b = words.AppendIDList(b, g.ParentIDs, 0, groupTextParents)
		}
	}
	b = append(b, '\n')
	if groupHasIDs(g.IDs) {
		b = append(b, "ids "...)
		b = words.AppendIDList(b, g.IDs, g.MoreIDs, groupTextIDs)
		b = append(b, '\n')
	}
	if len(g.Labels) > 0 {
		b = append(b, "labels "...)
		for i, lc := range g.Labels {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendGroupLabels(b, lc.Labels)
			if len(g.Labels) > 1 || lc.Count != g.Count {
				b = append(b, ": "...)
				b = strconv.AppendInt(b, lc.Count, 10)
			}
		}
		b = append(b, '\n')
	}
	if s.Unavailable {
		b = append(b, "\tgoroutine running on other thread; stack unavailable\n"...)
	}
	if g.Count != 1 {
		return appendTextFrames(b, s.Stack, nil, appendGroupSharedFrame)
	}
	return appendTextFrames(b, s.Stack, s.Values, appendGroupFrame)
}

// appendGroupFrame appends a frame of a group of one: `func(args)` with the
// member's arguments, and its file line without the member's fp/sp/pc.
func appendGroupFrame(b []byte, f *stack.Frame, v *stack.FrameValue) []byte {
	b = appendTextCall(b, f, v)
	return appendTextLocation(b, f, nil, "\t")
}

// appendGroupSharedFrame appends a frame of a group of many, whose members'
// arguments differ: `func(...)` and its file line.
func appendGroupSharedFrame(b []byte, f *stack.Frame, _ *stack.FrameValue) []byte {
	b = append(b, f.Func...)
	if !f.Native {
		b = append(b, "(...)"...)
	}
	b = append(b, '\n')
	return appendTextLocation(b, f, nil, "\t")
}

func groupHasIDs(ids []int64) bool {
	for _, id := range ids {
		if id != 0 {
			return true
		}
	}
	return false
}

// How many ids or ranges a group's text shows before "… (+N more)".
const (
	groupTextIDs     = 24
	groupTextParents = 5
)

// appendGroupLabels appends a label set as Go 1.27 tracebacks print it:
// {k: v, "odd key": "a\"b"}, quoting only what is not [A-Za-z0-9./_]+.
func appendGroupLabels(b []byte, ls stack.Labels) []byte {
	b = append(b, '{')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendGroupQuoted(b, l.Key)
		b = append(b, ": "...)
		b = appendGroupQuoted(b, l.Value)
	}
	return append(b, '}')
}

func appendGroupQuoted(b []byte, s string) []byte {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '/' || c == '_'
	}
	if plain {
		return append(b, s...)
	}
	return appendTextQuoted(b, s)
}
