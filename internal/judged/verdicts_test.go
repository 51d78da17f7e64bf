package judged

import (
	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/stack"
)

// verdictsOf analyses a case's snapshots, oldest first, as a user would:
// `stackdump analyze` over them in order (the findings of the last dump's
// summary, which weighs the earlier ones), then `stackdump timeline` over
// them (its findings).
func verdictsOf(snaps []*stack.Dump) []verdict {
	h := analyze.NewLeakHistory()
	var s *analyze.Summary
	tl := analyze.NewTimeline(analyze.TimelineOptions{})
	for _, d := range snaps {
		s = analyze.Summarize(d, nil, analyze.Options{History: h})
		tl.Add(d)
	}
	var out []verdict
	for _, f := range append(s.Findings, tl.Report().Findings...) {
		out = append(out, verdict{Kind: string(f.Kind), Where: f.Subject.Where(), Text: string(f.Confidence) + ": " + f.Claim})
	}
	return out
}
