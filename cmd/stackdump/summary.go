package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// summaryTopGroups is how many groups a capture summary lists.
const summaryTopGroups = 5

// writeCaptureSummary prints one screen about a captured target: where it
// went and the size written there (compressed: what the file holds), what
// came over the wire, totals by state, the largest groups and the warnings.
func writeCaptureSummary(w io.Writer, r captureResult) {
	dest := r.job.path
	if dest == "" {
		dest = "standard output"
	}
	fmt.Fprintf(w, "%s → %s: %s written in %s (%s received)\n", r.job.target, dest, humanBytes(r.job.written.Load()), r.elapsed.Round(1e6), humanBytes(r.job.received.Load()))
	for _, dr := range r.dumps {
		writeDumpSummary(w, dr)
		if r.job.ropts.Mode == remote.ModeLeak {
			writeLeakSummary(w, dr)
		}
	}
	if r.recovered != nil {
		fmt.Fprintf(w, "  recovered from debug=1: %s in %s\n", words.Count(r.recovered.dump.Total, "goroutine"), words.Count(len(r.recovered.groups), "group"))
	}
}

func writeDumpSummary(w io.Writer, dr dumpResult) {
	d := dr.dump
	states := make(map[string]int64)
	for _, g := range dr.groups {
		for s, n := range g.States {
			states[s] += n
		}
	}
	noun := "goroutines"
	if d.Source.Kind == stack.KindJVMText || d.Source.Kind == stack.KindJVMJSON {
		noun = "threads"
	}
	fmt.Fprintf(w, "  %s in %s", words.Count(d.Total, noun), words.Count(len(dr.groups), "group"))
	if d.Truncated {
		fmt.Fprint(w, " (TRUNCATED)")
	}
	fmt.Fprintln(w)
	if how := memoryReadSummary(d.Source.Capture); how != "" {
		fmt.Fprintf(w, "  %s\n", how)
	}
	if len(states) > 0 {
		fmt.Fprintf(w, "  states: %s\n", stateHistogram(states, 6))
	}
	for _, g := range dr.groups[:min(len(dr.groups), summaryTopGroups)] {
		line := fmt.Sprintf("  %8d  %-16s %s", g.Count, cmp.Or(dedupe.MainState(g), "-"), groupWhere(g))
		if g.Sample != nil && g.Sample.CreatedBy != nil {
			line += "  ← " + g.Sample.CreatedBy.Func
		}
		fmt.Fprintln(w, line)
	}
	if s := dr.summary; s != nil {
		writeFindings(w, s.Findings, s.Clear(), "  ")
	}
	if n := len(d.Warnings); n > 0 {
		fmt.Fprintf(w, "  %s; first: %v\n", words.Count(n, "warning"), d.Warnings[0])
	}
}

// writeLeakSummary says what a leak capture (--mode leak) proved: the
// goroutines the runtime's leak detection marked (leaked), by group, or
// that it proved none, and what that does and does not mean.
func writeLeakSummary(w io.Writer, dr dumpResult) {
	if dr.leaked == 0 {
		fmt.Fprintln(w, "  0 proven leaked: the leak-detection GC cycle found no goroutine blocked on a channel, lock or wait group that no other goroutine can reach; a goroutine blocked on one still reachable (a global, a long-lived struct's field) is never proven, see stackdump analyze's likely leaks")
		return
	}
	groups := 0
	for _, g := range dr.groups {
		if g.Leaked > 0 {
			groups++
		}
	}
	fmt.Fprintf(w, "  %d proven leaked in %s (marked (leaked)): blocked on a channel, lock or wait group no other goroutine can reach\n", dr.leaked, words.Count(groups, "group"))
	shown := 0
	for _, g := range dr.groups {
		if g.Leaked == 0 || shown == summaryTopGroups {
			continue
		}
		shown++
		fmt.Fprintf(w, "  %8d  leaked in %s\n", g.Leaked, groupWhere(g))
	}
}

// summaryFindings is how many findings a summary lists.
const summaryFindings = 5

// writeFindings lists findings (analyze's verdicts, most alarming first)
// one a line with their strongest evidence and what would settle those
// one snapshot cannot, then the checks that found nothing (clear,
// analyze.Summary.Clear); indent starts each line.
func writeFindings(w io.Writer, fs []analyze.Finding, clear []string, indent string) {
	for _, f := range fs[:min(len(fs), summaryFindings)] {
		fmt.Fprintf(w, "%s%s\n", indent, f)
		if len(f.Evidence) > 0 {
			fmt.Fprintf(w, "%s    · %s\n", indent, f.Evidence[0].Text)
		}
		if f.Confidence == analyze.Possible && f.WouldProve != "" {
			fmt.Fprintf(w, "%s    would prove: %s\n", indent, f.WouldProve)
		}
	}
	if n := len(fs) - summaryFindings; n > 0 {
		fmt.Fprintf(w, "%s… and %d more (stackdump analyze lists them all)\n", indent, n)
	}
	if len(clear) > 0 {
		fmt.Fprintf(w, "%s✓ %s\n", indent, strings.Join(clear, ", "))
	}
}

// stateHistogram renders the n most common states with their counts.
func stateHistogram(states map[string]int64, n int) string {
	keys := slices.SortedFunc(maps.Keys(states), func(a, b string) int {
		return cmp.Or(cmp.Compare(states[b], states[a]), cmp.Compare(a, b))
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-n))
			break
		}
		name := k
		if name == "" {
			name = "unknown"
		}
		parts = append(parts, fmt.Sprintf("%d %s", states[k], name))
	}
	return strings.Join(parts, ", ")
}

// groupWhere names a group for a table by the one rule of every table
// (dedupe.PlaceOf): the program's code it is in, with the standard
// library's waiting call under it as detail ("main.(*Cache).Get
// (cache.go:42) in sync.(*Mutex).Lock").
func groupWhere(g *stack.Group) string {
	name := dedupe.GroupName(g)
	if p := dedupe.GroupPlace(g); p.Wait != nil {
		name += " in " + p.Wait.Func
	}
	return name
}

// memoryReadSummary says how a dump read from a process's memory (pid:,
// goproc) was read: at one instant, and what the stop cost, or without
// stopping the process. "" for any other capture.
func memoryReadSummary(c *stack.Capture) string {
	switch {
	case c == nil:
		return ""
	case c.Mode == goproc.ModeStopped:
		return fmt.Sprintf("read from its memory at one instant: the process was stopped %v (predicted %v)", roundPause(c.Pause), roundPause(c.PausePredicted))
	case c.Mode == goproc.ModeLive:
		return "read from its memory without stopping the process: each goroutine is consistent in itself, not all at one instant"
	case c.Mode == goproc.ModeCore:
		return "read from a core file"
	}
	return ""
}
