package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// summaryTopGroups is how many groups a capture summary lists.
const summaryTopGroups = 5

// writeCaptureSummary prints one screen about a captured target: where it
// went, totals by state, the largest groups and the warnings.
func writeCaptureSummary(w io.Writer, r captureResult) {
	dest := r.job.path
	if dest == "" {
		dest = "standard output"
	}
	fmt.Fprintf(w, "%s → %s (%s in %s)\n", r.job.target, dest, humanBytes(r.job.received.Load()), r.elapsed.Round(1e6))
	for _, dr := range r.dumps {
		writeDumpSummary(w, dr)
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
		line := fmt.Sprintf("  %8d  %-16s %s", g.Count, dedupe.MainState(g), dedupe.TopFrameText(g))
		if g.Sample != nil && g.Sample.CreatedBy != nil {
			line += "  ← " + g.Sample.CreatedBy.Func
		}
		fmt.Fprintln(w, line)
	}
	if n := len(d.Warnings); n > 0 {
		fmt.Fprintf(w, "  %s; first: %v\n", words.Count(n, "warning"), d.Warnings[0])
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
