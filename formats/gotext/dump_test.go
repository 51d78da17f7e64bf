package gotext

import (
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// modelText renders dumps as stable, diffable text for golden files: every
// field of the model that the Go traceback reader sets, one routine per
// block. It is test-only; the JSON encoder is the product's format.
func modelText(dumps []*stack.Dump) string {
	var b strings.Builder
	for i, d := range dumps {
		fmt.Fprintf(&b, "dump %d kind=%s total=%d truncated=%v routines=%d\n", i+1, d.Source.Kind, d.Total, d.Truncated, len(d.Routines))
		for _, p := range d.Preamble {
			fmt.Fprintf(&b, "  preamble %q\n", p)
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "  warning line=%d offset=%d %s %q\n", w.Line, w.Offset, w.Msg, w.Text)
		}
		for i, rc := range d.Races {
			fmt.Fprintf(&b, "  race %d line=%d\n", i+1, rc.Line)
			for _, a := range rc.Accesses {
				fmt.Fprintf(&b, "    access %q op=%s atomic=%v previous=%v size=%d addr=%#x goroutine=%d main=%v line=%d\n",
					a.Desc(), a.Op, a.Atomic, a.Previous, a.Size, a.Addr, a.Goroutine, a.Main, a.Line)
				writeStackText(&b, "      ", a.Stack, nil)
			}
			for _, c := range rc.Creators {
				fmt.Fprintf(&b, "    creator goroutine=%d state=%q line=%d\n", c.Goroutine, c.State, c.Line)
				writeStackText(&b, "      ", c.Stack, nil)
			}
		}
		if s := d.SystemStack; s != nil {
			fmt.Fprintf(&b, "  system stack line=%d\n", s.Line)
			writeStackText(&b, "    ", s.Stack, s.Values)
		}
		for _, r := range d.Routines {
			writeRoutineText(&b, r)
		}
	}
	return b.String()
}

func writeRoutineText(b *strings.Builder, r *stack.Routine) {
	fmt.Fprintf(b, "  routine id=%d line=%d count=%d state=%q", r.ID, r.Line, r.Count, r.State)
	if r.WaitMinutes != 0 {
		fmt.Fprintf(b, " wait=%d", r.WaitMinutes)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{r.Locked, "locked"}, {r.Leaked, "leaked"}, {r.Durable, "durable"}, {r.Scan, "scan"}, {r.Unavailable, "unavailable"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	if r.Bubble != 0 {
		fmt.Fprintf(b, " bubble=%d", r.Bubble)
	}
	if r.HasGP {
		fmt.Fprintf(b, " gp=%#x m=%d mp=%#x", r.GP, r.M, r.MP)
	}
	if r.ParentID != 0 {
		fmt.Fprintf(b, " parent=%d", r.ParentID)
	}
	b.WriteString("\n")
	if len(r.Labels) > 0 {
		fmt.Fprintf(b, "    labels %q\n", r.Labels)
	}
	writeStackText(b, "    ", r.Stack, r.Values)
	if r.CreatedBy != nil {
		fmt.Fprintf(b, "    created by %s\n", frameText(r.CreatedBy))
	}
	if r.CreatedByValues != nil {
		fmt.Fprintf(b, "      %s\n", valueText(*r.CreatedByValues))
	}
	for _, a := range r.Ancestors {
		fmt.Fprintf(b, "    ancestor %d\n", a.ID)
		writeStackText(b, "      ", a.Stack, a.Values)
		if a.CreatedBy != nil {
			fmt.Fprintf(b, "      created by %s\n", frameText(a.CreatedBy))
		}
	}
}

func writeStackText(b *strings.Builder, indent string, s *stack.Stack, vs *stack.FrameValues) {
	if s == nil {
		fmt.Fprintf(b, "%sstack <nil>\n", indent)
		return
	}
	for i, f := range s.Frames {
		if s.Elided && s.ElidedAt == i {
			fmt.Fprintf(b, "%s... elided %d\n", indent, s.ElidedCount)
		}
		fmt.Fprintf(b, "%s%s", indent, frameText(f))
		if vs != nil && i < len(vs.Frames) {
			if v := valueText(vs.Frames[i]); v != "" {
				b.WriteString(" | " + v)
			}
		}
		b.WriteString("\n")
	}
	if s.Elided && s.ElidedAt == len(s.Frames) {
		fmt.Fprintf(b, "%s... elided %d\n", indent, s.ElidedCount)
	}
}

func frameText(f *stack.Frame) string {
	s := fmt.Sprintf("%s @ %s:%d", f.Func, f.File, f.Line)
	if f.HasOffset {
		s += fmt.Sprintf(" +%#x", f.Offset)
	}
	if f.Inlined {
		s += " inlined"
	}
	if f.Native {
		s += " native"
	}
	return s
}

func valueText(v stack.FrameValue) string {
	var parts []string
	if v.Args != "" {
		parts = append(parts, fmt.Sprintf("args=%q", v.Args))
	}
	if v.FP != 0 || v.SP != 0 {
		parts = append(parts, fmt.Sprintf("fp=%#x sp=%#x", v.FP, v.SP))
	}
	if v.PC != 0 {
		parts = append(parts, fmt.Sprintf("pc=%#x", v.PC))
	}
	return strings.Join(parts, " ")
}
