package judged

import (
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/stack"
)

// verdictsOf analyses a case's snapshots, oldest first, as a user would:
// `stackdump analyze` over them in order (the last dump's summary, which
// weighs the earlier ones), then `stackdump timeline` over them.
func verdictsOf(snaps []*stack.Dump) []verdict {
	h := analyze.NewLeakHistory()
	var s *analyze.Summary
	tl := analyze.NewTimeline(analyze.TimelineOptions{})
	for _, d := range snaps {
		s = analyze.Summarize(d, nil, analyze.Options{History: h, Top: 50})
		tl.Add(d)
	}
	var out []verdict
	for _, l := range s.Leaked {
		out = append(out, verdict{Kind: "proven-leak", Where: ref(l.Frame), Text: fmt.Sprintf("%d at %s", l.Count, ref(l.Frame))})
	}
	for _, l := range s.LikelyLeaks {
		out = append(out, verdict{Kind: "likely-leak", Where: ref(l.Frame), Text: fmt.Sprintf("%d %s at %s: %s", l.Blocked, l.State, ref(l.Frame), strings.Join(l.Reasons, "; "))})
	}
	for _, c := range s.Contention {
		out = append(out, verdict{Kind: "contention", Where: c.Frame.Func, Text: fmt.Sprintf("%d %s at %s", c.Count, c.Lock, c.Frame.Func)})
	}
	if s.JVM != nil {
		for _, d := range s.JVM.Deadlocks {
			var w []string
			for _, th := range d.Threads {
				w = append(w, th.Name, ref(th.Frame))
			}
			out = append(out, verdict{Kind: "deadlock", Where: strings.Join(w, " "), Text: strings.Join(w, " ")})
		}
		for _, b := range s.JVM.Blockers {
			owner := "owner unknown"
			if b.Owner != nil {
				owner = b.Owner.Name + " " + ref(b.Owner.Frame)
			}
			out = append(out, verdict{Kind: "blocked", Where: b.Lock + " " + owner, Text: fmt.Sprintf("%d blocked on %s held by %s", b.Blocked, b.Lock, owner)})
		}
	}
	rep := tl.Report()
	for _, r := range rep.Stuck {
		where := ref(r.Frame) + " " + strings.Join(r.Names, " ")
		out = append(out, verdict{Kind: "stuck", Where: where, Text: fmt.Sprintf("%d %s at %s", r.Count, r.State, where)})
	}
	return out
}

func ref(f *analyze.FrameRef) string {
	if f == nil {
		return "-"
	}
	return f.Func
}
