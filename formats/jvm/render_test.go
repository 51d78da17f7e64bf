package jvm_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// renderJVM is a stable, test-only text rendering of JVM dumps for golden
// files: every modelled field, one line per routine, frame and lock.
func renderJVM(dumps []*stack.Dump) string {
	var b strings.Builder
	for i, d := range dumps {
		fmt.Fprintf(&b, "dump %d kind=%s runtime=%q target=%q", i+1, d.Source.Kind, d.Source.Runtime, d.Source.Target)
		if !d.Source.CapturedAt.IsZero() {
			fmt.Fprintf(&b, " at=%s", d.Source.CapturedAt.UTC().Format(time.RFC3339Nano))
		}
		fmt.Fprintf(&b, " total=%d truncated=%v routines=%d\n", d.Total, d.Truncated, len(d.Routines))
		for _, p := range d.Preamble {
			fmt.Fprintf(&b, "preamble %q\n", p)
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "warning %s\n", w)
		}
		for _, r := range d.Routines {
			renderJVMRoutine(&b, r)
		}
	}
	return b.String()
}

func renderJVMRoutine(b *strings.Builder, r *stack.Routine) {
	fmt.Fprintf(b, "routine id=%d name=%q state=%q count=%d hdr=%d", r.ID, r.Name, r.State, r.Count, r.Line)
	if th := r.Thread; th != nil {
		for _, f := range []struct {
			name string
			on   bool
		}{{"daemon", th.Daemon}, {"virtual", th.Virtual}, {"native", th.Native}} {
			if f.on {
				fmt.Fprintf(b, " %s", f.name)
			}
		}
		if th.OSID != 0 {
			fmt.Fprintf(b, " osid=%d", th.OSID)
		}
		if th.Priority != 0 || th.OSPrio != 0 {
			fmt.Fprintf(b, " prio=%d os_prio=%d", th.Priority, th.OSPrio)
		}
		if th.CPU != 0 || th.Elapsed != 0 {
			fmt.Fprintf(b, " cpu=%s elapsed=%s", th.CPU, th.Elapsed)
		}
		if th.Carrier != 0 {
			fmt.Fprintf(b, " carrier=%d", th.Carrier)
		}
		if th.Container != "" {
			fmt.Fprintf(b, " container=%q", th.Container)
		}
		if th.Detail != "" {
			fmt.Fprintf(b, " detail=%q", th.Detail)
		}
	}
	b.WriteByte('\n')
	if r.Stack != nil && r.Stack.Elided {
		fmt.Fprintf(b, "  elided at=%d count=%d\n", r.Stack.ElidedAt, r.Stack.ElidedCount)
	}
	for i, f := range r.Frames() {
		fmt.Fprintf(b, "  at %s module=%q file=%q line=%d", f.Func, f.Module, f.File, f.Line)
		if f.Native {
			b.WriteString(" native")
		}
		b.WriteByte('\n')
		if r.Values != nil && i < len(r.Values.Frames) {
			for _, l := range r.Values.Frames[i].Locks {
				fmt.Fprintf(b, "    - %s addr=%q class=%q\n", l.Kind, l.Addr, l.Class)
			}
		}
	}
	if r.Thread != nil {
		for _, l := range r.Thread.Synchronizers {
			fmt.Fprintf(b, "  sync %s addr=%q class=%q\n", l.Kind, l.Addr, l.Class)
		}
	}
}
