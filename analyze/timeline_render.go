package analyze

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// WriteTimelineJSON writes rep as one indented JSON document:
// {"schema": "stackdump-timeline/v1", "snapshots": […], "stuck": […],
// "stuck_total": N, "busiest": […], "groups": […], …} (docs/fleet.md).
func WriteTimelineJSON(w io.Writer, rep *TimelineReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// WriteTimelineText renders rep for a terminal: the snapshots with their
// new and gone ids, the stuck routines, the busiest threads and the
// groups over time.
func WriteTimelineText(w io.Writer, rep *TimelineReport, opts TextOptions) error {
	if opts.FuncWidth <= 0 {
		opts.FuncWidth = 72
	}
	r := &timelineRenderer{textWriter: textWriter{color: opts.Color}, rep: rep, width: opts.FuncWidth}
	r.snapshots()
	r.stuck()
	r.busiest()
	r.groups()
	_, err := w.Write(r.b)
	return err
}

type timelineRenderer struct {
	textWriter
	rep   *TimelineReport
	width int
}

func (r *timelineRenderer) snapshots() {
	rep := r.rep
	detail := ""
	if rep.Span > 0 {
		detail = "over " + durationText(rep.Span)
	}
	if rep.Dropped > 0 {
		detail = strings.TrimSpace(detail + fmt.Sprintf(" (%d older not shown)", rep.Dropped))
	}
	r.styled(bold, words.Count(len(rep.Snapshots)+rep.Dropped, "snapshot"))
	if detail != "" {
		r.b = append(r.b, "  "...)
		r.styled(dim, detail)
	}
	r.b = append(r.b, '\n')
	rows := [][]cell{}
	for _, s := range rep.Snapshots {
		at := "-"
		if !s.CapturedAt.IsZero() {
			at = s.CapturedAt.UTC().Format(time.RFC3339)
		}
		change := ""
		if s.Index > 0 && !rep.NoIDs {
			change = "no ids new or gone"
			if s.New+s.Gone > 0 {
				change = strings.Join(strings.Fields(fmt.Sprintf("+%d new %s, -%d gone %s", s.New, idList(s.NewIDs, int64(s.New)), s.Gone, idList(s.GoneIDs, int64(s.Gone)))), " ")
				change = strings.ReplaceAll(change, " ,", ",")
			}
		}
		rows = append(rows, []cell{{text: "#" + itoa(int64(s.Index))}, {text: at}, count(s.Total, plain), {text: routineNoun(s.Kind)}, {text: shorten(s.Name, 40), style: dim}, {text: strings.TrimSpace(change)}})
	}
	r.table(rows)
	if rep.NoIDs {
		r.line(cell{text: "  some routines have no ids (grouped input): only the groups follow them", style: dim})
	}
}

func (r *timelineRenderer) stuck() {
	rep := r.rep
	if len(rep.Snapshots)+rep.Dropped < 2 {
		return
	}
	if rep.StuckTotal == 0 {
		r.heading("Stuck", green, "nothing unchanged in every snapshot")
		return
	}
	r.heading("Stuck", red, fmt.Sprintf("%d unchanged in every snapshot (same id, state and stack)", rep.StuckTotal))
	rows := [][]cell{}
	for _, s := range rep.Stuck {
		who := idList(s.IDs, int64(s.Count))
		if len(s.Names) > 0 {
			shown := s.Names[:min(len(s.Names), textNames)]
			who = strings.Join(quoteNames(shown), " ")
			if len(shown) < s.Count {
				who += " …"
			}
		}
		where := "-"
		if s.Frame != nil {
			where = shorten(s.Frame.String(), r.width)
		}
		rows = append(rows, []cell{count(int64(s.Count), plain), {text: stateText(s.State), style: stateStyle(s.State)}, {text: "≥ " + durationText(s.For)}, {text: where}, {text: who, style: dim}})
	}
	r.table(rows)
	if len(rep.Stuck) > 0 && rep.StuckTotal > sumStuck(rep.Stuck) {
		r.line(cell{text: fmt.Sprintf("  … %d more", rep.StuckTotal-sumStuck(rep.Stuck)), style: dim})
	}
}

// textNames is how many thread names a stuck row shows in text.
const textNames = 4

func sumStuck(rows []StuckRow) int {
	n := 0
	for _, s := range rows {
		n += s.Count
	}
	return n
}

func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteName(n)
	}
	return out
}

func (r *timelineRenderer) busiest() {
	if len(r.rep.Busiest) == 0 {
		return
	}
	r.heading("Most work", yellow, "CPU time used between snapshots")
	rows := [][]cell{}
	for _, b := range r.rep.Busiest {
		where := "-"
		if b.Frame != nil {
			where = shorten(b.Frame.String(), r.width)
		}
		name := quoteName(b.Name)
		if b.Gone {
			name += " (gone)"
		}
		rows = append(rows, []cell{{text: durationText(b.CPU), right: true}, {text: name}, {text: stateText(b.State), style: stateStyle(b.State)}, {text: where, style: dim}})
	}
	r.table(rows)
}

func (r *timelineRenderer) groups() {
	if len(r.rep.Groups) == 0 {
		return
	}
	r.heading("Groups over time", plain, "count in each snapshot, oldest first")
	rows := [][]cell{}
	for _, g := range r.rep.Groups {
		counts := make([]string, len(g.Counts))
		for i, c := range g.Counts {
			counts[i] = itoa(c)
		}
		where := "-"
		if g.Frame != nil {
			where = shorten(g.Frame.String(), r.width)
		}
		rows = append(rows, []cell{{text: strings.Join(counts, " → ")}, {text: stateText(g.State), style: stateStyle(g.State)}, {text: where}})
	}
	r.table(rows)
}

func routineNoun(k stack.Kind) string {
	if k == stack.KindJVMText || k == stack.KindJVMJSON {
		return "threads"
	}
	return "goroutines"
}

// durationText rounds d for reading: "850ms", "42s", "3m10s", "2h5m".
func durationText(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		d = d.Round(time.Second)
	default:
		d = d.Round(time.Minute)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
