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
// "stuck_total": N, "busiest": […], "groups": […], …} (docs/timeline.md).
func WriteTimelineJSON(w io.Writer, rep *TimelineReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// WriteTimelineText renders rep for a terminal: the snapshots with their
// new and gone ids, the findings other than stuck rows (deadlocks of the
// last snapshot, growth), the stuck routines, the idle and housekeeping
// ones (one line each unless opts.ListHousekeeping), the busiest threads
// and the groups over time.
func WriteTimelineText(w io.Writer, rep *TimelineReport, opts TextOptions) error {
	if opts.FuncWidth <= 0 {
		opts.FuncWidth = 72
	}
	r := &timelineRenderer{textWriter: textWriter{color: opts.Color}, rep: rep, width: opts.FuncWidth, listHousekeeping: opts.ListHousekeeping, listHint: opts.ListHint}
	r.snapshots()
	r.findings()
	r.stuck()
	r.idle()
	r.housekeeping()
	r.busiest()
	r.groups()
	_, err := w.Write(r.b)
	return err
}

type timelineRenderer struct {
	textWriter
	rep              *TimelineReport
	width            int
	listHousekeeping bool
	listHint         string
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
		r.heading("Stuck", green, "nothing unchanged waits on a lock, a deadlock or a channel no one can serve")
		return
	}
	r.heading("Stuck", red, fmt.Sprintf("%d unchanged up to the last snapshot, on a wait that shows they cannot progress", rep.StuckTotal))
	r.table(r.stuckTable(rep.Stuck))
	if len(rep.Stuck) > 0 && rep.StuckTotal > sumStuck(rep.Stuck) {
		r.line(cell{text: fmt.Sprintf("  … %d more", rep.StuckTotal-sumStuck(rep.Stuck)), style: dim})
	}
}

// stuckTable is the rows of a stuck or housekeeping list: count, state,
// for how long at least, over which snapshots, where, who.
func (r *timelineRenderer) stuckTable(list []StuckRow) [][]cell {
	total := len(r.rep.Snapshots) + r.rep.Dropped
	rows := [][]cell{}
	for _, s := range list {
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
		run := fmt.Sprintf("since #%d", s.Since)
		if s.Since == 0 && s.Snapshots == total {
			run = "every snapshot"
		}
		long := "-" // no capture times nor wait minutes
		if s.For > 0 {
			long = "≥ " + durationText(s.For)
		}
		why := cell{text: stuckReason(s.Why), style: dim}
		rows = append(rows, []cell{count(int64(s.Count), plain), {text: stateText(s.State), style: stateStyle(s.State)}, {text: long}, {text: run, style: dim}, why, {text: where}, {text: who, style: dim}})
	}
	return rows
}

// stuckReason is the reason column of a stuck row; housekeeping and idle
// rows say theirs in their heading.
func stuckReason(why string) string {
	switch why {
	case "deadlocked":
		return "deadlocked"
	case "lock":
		return "lock not released"
	case "no-sender":
		return "no one can serve it"
	case "grows":
		return "its group only grows"
	}
	return ""
}

// findings shows the timeline's findings other than its stuck rows, which
// the stuck table shows: the deadlocks of the last snapshot (those the JVM
// reported among them) and the groups that grew.
func (r *timelineRenderer) findings() {
	var fs []Finding
	for _, f := range r.rep.Findings {
		if f.Kind != FindingStuck {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return
	}
	r.heading("Findings", findingsStyle(fs), "deadlocks of the last snapshot, growth across snapshots")
	r.writeFindings(fs, r.width)
}

// idleKinds names the kinds of idle waits in the folded line.
var idleKinds = []struct{ why, text string }{
	{IdleNetwork, "the network"},
	{IdleTimer, "a timer"},
	{IdleWait, "an event"},
	{IdleNative, "a system call or native I/O"},
}

// idle folds the idle rows into one line, or lists them with
// ListHousekeeping.
func (r *timelineRenderer) idle() {
	rep := r.rep
	by := whyCounts(rep.Idle)
	var parts []string
	for _, k := range idleKinds {
		if n := by[k.why]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d for %s", n, k.text))
		}
	}
	r.folded("Idle", rep.Idle, rep.IdleTotal, "unchanged, waiting: "+strings.Join(parts, ", ")+"; idle, not stuck")
}

// housekeepingKinds names the kinds of housekeeping in the folded line.
var housekeepingKinds = []struct{ why, jvm, goroutines string }{
	{HousekeepingNoStack, "without a Java stack (GC, compiler, VM)", "without a Java stack"},
	{HousekeepingPlatform, "in the JDK only", "in the standard library only"},
	{HousekeepingPool, "idle pool workers", "idle pool workers"},
}

func (r *timelineRenderer) housekeeping() {
	rep := r.rep
	by := whyCounts(rep.Housekeeping)
	var parts []string
	for _, k := range housekeepingKinds {
		if n := by[k.why]; n > 0 {
			what := k.goroutines
			if r.noun() == "threads" {
				what = k.jvm
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	r.folded("Housekeeping", rep.Housekeeping, rep.HousekeepingTotal, "of the platform's own idle work, not stuck: "+strings.Join(parts, ", "))
}

// folded writes a list of unchanged rows that are not stuck: one line
// that counts them by kind (and ends with ListHint), or, with
// ListHousekeeping, the rows.
func (r *timelineRenderer) folded(title string, rows []StuckRow, total int, detail string) {
	if total == 0 {
		return
	}
	detail = words.Count(total, strings.TrimSuffix(r.noun(), "s")) + " " + detail
	if !r.listHousekeeping {
		if r.listHint != "" {
			detail += "; " + r.listHint
		}
		r.heading(title, dim, detail)
		return
	}
	r.heading(title, dim, detail)
	r.table(r.stuckTable(rows))
	if listed := sumStuck(rows); total > listed {
		r.line(cell{text: fmt.Sprintf("  … %d more", total-listed), style: dim})
	}
}

// noun is "goroutines" or "threads", as the last snapshot says.
func (r *timelineRenderer) noun() string {
	if n := len(r.rep.Snapshots); n > 0 {
		return routineNoun(r.rep.Snapshots[n-1].Kind)
	}
	return "goroutines"
}

// whyCounts counts the routines of rows by their Why.
func whyCounts(rows []StuckRow) map[string]int {
	by := map[string]int{}
	for _, s := range rows {
		by[s.Why] += s.Count
	}
	return by
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

// textCounts is how many counts a group row shows in full; past it, the
// first and the last.
const textCounts = 8

func (r *timelineRenderer) groups() {
	if len(r.rep.Groups) == 0 {
		return
	}
	r.heading("Groups over time", plain, "the largest at their peak; peak, then the count in each snapshot, oldest first")
	rows := [][]cell{}
	for _, g := range r.rep.Groups {
		var counts string
		if len(g.Counts) <= textCounts {
			parts := make([]string, len(g.Counts))
			for i, c := range g.Counts {
				parts[i] = itoa(c)
			}
			counts = strings.Join(parts, " → ")
		} else {
			counts = fmt.Sprintf("%d → … → %d (peak at #%d)", g.First, g.Last, g.PeakAt+r.firstIndex())
		}
		where := "-"
		if g.Frame != nil {
			where = shorten(g.Frame.String(), r.width)
		}
		rows = append(rows, []cell{count(g.Peak, plain), {text: counts}, {text: stateText(g.State), style: stateStyle(g.State)}, {text: where}})
	}
	r.table(rows)
}

// firstIndex is the index of the first snapshot described.
func (r *timelineRenderer) firstIndex() int {
	if len(r.rep.Snapshots) == 0 {
		return 0
	}
	return r.rep.Snapshots[0].Index
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
