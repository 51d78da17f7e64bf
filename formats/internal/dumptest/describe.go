package dumptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// DescribeOptions says what a model comparison leaves out.
type DescribeOptions struct {
	Lines    bool // Routine.Line is compared (it names input lines)
	Warnings bool // Dump.Warnings are compared
}

// Describe renders every field of a dump, one per line, frames by
// value, so that two models compare by their text and a mismatch shows
// as a readable line. Pointer identity and Table ids are left out.
func Describe(d *stack.Dump, o DescribeOptions) string {
	var sb strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&sb, format+"\n", args...) }
	s := d.Source
	p("source kind=%q runtime=%q target=%q captured=%s", s.Kind, s.Runtime, s.Target, describeTime(s))
	if c := s.Capture; c != nil {
		p("capture mode=%q goroutines=%d duration=%d pause=%d pauses=%d missing=%q", c.Mode, c.Goroutines, c.Duration, c.Pause, c.Pauses, c.Missing)
	}
	for _, l := range d.Preamble {
		p("preamble %q", l)
	}
	p("truncated=%v total=%d", d.Truncated, d.Total)
	if o.Warnings {
		for _, w := range d.Warnings {
			p("warning line=%d offset=%d msg=%q text=%q", w.Line, w.Offset, w.Msg, w.Text)
		}
	}
	for i, rc := range d.Races {
		p("race %d", i)
		if o.Lines {
			p("  line=%d", rc.Line)
		}
		for _, a := range rc.Accesses {
			p("  access op=%q atomic=%v previous=%v size=%d addr=%#x goroutine=%d main=%v", a.Op, a.Atomic, a.Previous, a.Size, a.Addr, a.Goroutine, a.Main)
			if o.Lines {
				p("    line=%d", a.Line)
			}
			describeStack(&sb, "    ", a.Stack, nil)
		}
		for _, c := range rc.Creators {
			p("  creator goroutine=%d state=%q", c.Goroutine, c.State)
			if o.Lines {
				p("    line=%d", c.Line)
			}
			describeStack(&sb, "    ", c.Stack, nil)
		}
	}
	if s := d.SystemStack; s != nil {
		p("system stack")
		if o.Lines {
			p("  line=%d", s.Line)
		}
		describeStack(&sb, "  ", s.Stack, s.Values)
	}
	for i, r := range d.Routines {
		p("routine %d", i)
		DescribeRoutine(&sb, r, o)
	}
	return sb.String()
}

func describeTime(s stack.Source) string {
	if s.CapturedAt.IsZero() {
		return "zero"
	}
	return s.CapturedAt.UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// DescribeRoutine renders every field of r into sb, one per line, as
// Describe does for each routine of a dump.
func DescribeRoutine(sb *strings.Builder, r *stack.Routine, o DescribeOptions) {
	p := func(format string, args ...any) { fmt.Fprintf(sb, "  "+format+"\n", args...) }
	p("id=%d count=%d name=%q state=%q wait=%d", r.ID, r.Count, r.Name, r.State, r.WaitMinutes)
	p("locked=%v leaked=%v durable=%v scan=%v bubble=%d unavailable=%v stale=%v inferred=%q",
		r.Locked, r.Leaked, r.Durable, r.Scan, r.Bubble, r.Unavailable, r.Stale, r.Inferred)
	if len(r.Labels) > 0 {
		p("labels %q", r.Labels)
	}
	if r.HasGP {
		p("gp=%#x m=%d mp=%#x", r.GP, r.M, r.MP)
	}
	p("parent=%d", r.ParentID)
	if r.CreatedBy != nil {
		p("created by %s", describeFrame(r.CreatedBy, r.CreatedByValues))
	}
	describeStack(sb, "  ", r.Stack, r.Values)
	for _, a := range r.Ancestors {
		p("ancestor %d", a.ID)
		if a.CreatedBy != nil {
			p("  created by %s", describeFrame(a.CreatedBy, nil))
		}
		describeStack(sb, "    ", a.Stack, a.Values)
	}
	if t := r.Thread; t != nil {
		p("thread os=%d daemon=%v prio=%d osprio=%d cpu=%d elapsed=%d virtual=%v carrier=%d container=%q native=%v detail=%q",
			t.OSID, t.Daemon, t.Priority, t.OSPrio, t.CPU, t.Elapsed, t.Virtual, t.Carrier, t.Container, t.Native, t.Detail)
		for _, l := range t.Synchronizers {
			p("  synchronizer %q %q %q", l.Kind, l.Addr, l.Class)
		}
	}
	if o.Lines {
		p("line=%d", r.Line)
	}
}

func describeStack(sb *strings.Builder, indent string, s *stack.Stack, vs *stack.FrameValues) {
	if s == nil {
		fmt.Fprintf(sb, "%snil stack\n", indent)
		return
	}
	if s.Elided {
		fmt.Fprintf(sb, "%selided at=%d count=%d\n", indent, s.ElidedAt, s.ElidedCount)
	}
	for i, f := range s.Frames {
		var v *stack.FrameValue
		if vs != nil && i < len(vs.Frames) {
			v = &vs.Frames[i]
		}
		fmt.Fprintf(sb, "%sframe %s\n", indent, describeFrame(f, v))
	}
}

func describeFrame(f *stack.Frame, v *stack.FrameValue) string {
	s := fmt.Sprintf("%q file=%q line=%d off=%#x/%v inlined=%v module=%q native=%v",
		f.Func, f.File, f.Line, f.Offset, f.HasOffset, f.Inlined, f.Module, f.Native)
	if v != nil && (v.Args != "" || v.FP != 0 || v.SP != 0 || v.PC != 0 || len(v.Locks) > 0) {
		s += fmt.Sprintf(" args=%q fp=%#x sp=%#x pc=%#x", v.Args, v.FP, v.SP, v.PC)
		for _, l := range v.Locks {
			s += fmt.Sprintf(" lock=%q/%q/%q", l.Kind, l.Addr, l.Class)
		}
	}
	return s
}

// DiffText reports the first line where got differs from want, with
// context, or "" when they are equal.
func DiffText(want, got string) string {
	if want == got {
		return ""
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			from := max(0, i-3)
			return fmt.Sprintf("first difference at line %d:\ncontext:\n%s\nwant: %s\ngot:  %s",
				i+1, strings.Join(wl[from:i], "\n"), w, g)
		}
	}
	return "texts differ"
}

// EqualDumps fails t when the dumps differ in any compared field.
func EqualDumps(t *testing.T, name string, want, got []*stack.Dump, o DescribeOptions) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d dumps, want %d", name, len(got), len(want))
		return
	}
	for i := range want {
		if d := DiffText(Describe(want[i], o), Describe(got[i], o)); d != "" {
			t.Errorf("%s: dump %d: %s", name, i, d)
		}
	}
}
