package analyze

import (
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// raceFrames is how many top frames of each access a race row keeps.
const raceFrames = 3

// RaceRow is one data race of the dump: the accesses of a race detector
// report (`WARNING: DATA RACE`), with the reports that are the same race
// folded into it. Two reports are the same race when their accesses
// (operation and stack) and creation stacks are the same, whatever their
// goroutine ids and addresses.
type RaceRow struct {
	// Count is how many reports of the dump are this race.
	Count int `json:"count"`
	// Accesses are the racing accesses of the first such report: the one
	// that tripped the detector, then the earlier one.
	Accesses []RaceAccessRow `json:"accesses"`
}

// RaceAccessRow is one access of a race.
type RaceAccessRow struct {
	// Op is the access as the detector names it, lower case: "write",
	// "previous read", "atomic write".
	Op string `json:"op"`
	// Goroutine is the accessing goroutine's id (1 with Main for the main
	// goroutine) in the first report.
	Goroutine int64 `json:"goroutine"`
	Main      bool  `json:"main,omitempty"`
	// Frames are the access's top frames, innermost first.
	Frames []FrameRef `json:"frames"`
	// CreatedAt is where the goroutine was started (its `go` statement and
	// the frames above it), when the report says; empty for the main
	// goroutine.
	CreatedAt []FrameRef `json:"created_at,omitempty"`
}

// RaceRows folds a dump's race reports into races, most reported first
// (then in input order), at most top of them (all for 0), and returns them
// with the number of reports. analyze and report show races this way.
func RaceRows(races []*stack.Race, top int) ([]RaceRow, int) {
	rows := []RaceRow{}
	index := map[string]int{}
	for _, rc := range races {
		key := raceKey(rc)
		if i, ok := index[key]; ok {
			rows[i].Count++
			continue
		}
		index[key] = len(rows)
		rows = append(rows, RaceRow{Count: 1, Accesses: raceAccessRows(rc)})
	}
	// A stable sort by count keeps input order among equals.
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].Count > rows[j-1].Count; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	if top > 0 && len(rows) > top {
		rows = rows[:top]
	}
	return rows, len(races)
}

// distinctRaces counts the distinct races of a dump's reports.
func distinctRaces(races []*stack.Race) int {
	seen := map[string]bool{}
	for _, rc := range races {
		seen[raceKey(rc)] = true
	}
	return len(seen)
}

// raceKey identifies a race by what does not change between its reports:
// each access's operation and frames, and each creator's frames.
func raceKey(rc *stack.Race) string {
	var b strings.Builder
	for _, a := range rc.Accesses {
		b.WriteString(a.Desc())
		writeStackKey(&b, a.Stack)
	}
	for _, c := range rc.Creators {
		b.WriteString("created")
		writeStackKey(&b, c.Stack)
	}
	return b.String()
}

func writeStackKey(b *strings.Builder, s *stack.Stack) {
	b.WriteByte('[')
	if s != nil {
		for _, f := range s.Frames {
			fmt.Fprintf(b, "%s %s:%d;", f.Func, f.File, f.Line)
		}
	}
	b.WriteByte(']')
}

// raceAccessRows describes rc's accesses, each with its goroutine's
// creation stack from the report.
func raceAccessRows(rc *stack.Race) []RaceAccessRow {
	var rows []RaceAccessRow
	for _, a := range rc.Accesses {
		row := RaceAccessRow{Op: strings.ToLower(a.Desc()), Goroutine: a.Goroutine, Main: a.Main, Frames: topFrames(a.Stack, raceFrames)}
		for _, c := range rc.Creators {
			if c.Goroutine == a.Goroutine && !a.Main {
				row.CreatedAt = topFrames(c.Stack, raceFrames)
				break
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// topFrames names the first n frames of s; an empty list when s has none.
func topFrames(s *stack.Stack, n int) []FrameRef {
	refs := []FrameRef{}
	if s == nil {
		return refs
	}
	for _, f := range s.Frames[:min(len(s.Frames), n)] {
		refs = append(refs, *frameRef(f))
	}
	return refs
}

// races renders the dump's data races: each race's accesses (who, what,
// where) and where the racing goroutines were started.
func (r *textRenderer) races() {
	s := r.s
	if s.RacesTotal == 0 {
		return
	}
	distinct := max(s.RacesDistinct, len(s.Races))
	title := fmt.Sprintf("Data races: %s", words.Count(distinct, "race"))
	if s.RacesTotal != distinct {
		title += fmt.Sprintf(" in %s", words.Count(s.RacesTotal, "report"))
	}
	if distinct > len(s.Races) {
		title += fmt.Sprintf(", the %d most reported below", len(s.Races))
	}
	r.heading(title, red, "found by the race detector")
	var rows [][]cell
	for _, race := range s.Races {
		for i, a := range race.Accesses {
			n := cell{}
			if i == 0 {
				n = count(int64(race.Count), bold+red)
			}
			who := fmt.Sprintf("%s by goroutine %d", a.Op, a.Goroutine)
			if a.Main {
				who = a.Op + " by main goroutine"
			}
			rows = append(rows, []cell{n, {text: who}, {text: r.frameList(a.Frames)}})
			if len(a.CreatedAt) > 0 {
				rows = append(rows, []cell{{}, {}, {text: "created at " + r.frameList(a.CreatedAt), style: dim}})
			}
		}
	}
	r.table(rows)
}

// frameList writes frames innermost first, each as "func file:line".
func (r *textRenderer) frameList(fs []FrameRef) string {
	if len(fs) == 0 {
		return "(no frames)"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = shorten(shortFunc(f.Func), r.width/2) + " " + f.Location()
	}
	return strings.Join(parts, " ← ")
}
