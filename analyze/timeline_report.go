package analyze

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// TimelineSnapshot describes one snapshot of a timeline.
type TimelineSnapshot struct {
	Index int `json:"index"` // 0 for the first snapshot added
	// Name is what the caller called the snapshot (a file name), Target
	// where it was captured from (Source.Target); either may be empty.
	Name       string     `json:"name,omitempty"`
	Target     string     `json:"target,omitempty"`
	Kind       stack.Kind `json:"kind,omitempty"`
	CapturedAt time.Time  `json:"captured_at,omitzero"`
	// Total is the number of routines; Tracked how many of them had an id
	// to follow them by (none in debug=1 and pprof inputs).
	Total   int64 `json:"total"`
	Tracked int   `json:"tracked"`
	// New and Gone count ids absent from the previous snapshot and ids of
	// the previous snapshot absent from this one; NewIDs and GoneIDs list
	// the smallest of them (JVM threads without an id are counted only).
	New       int     `json:"new"`
	Gone      int     `json:"gone"`
	NewIDs    []int64 `json:"new_ids,omitempty"`
	GoneIDs   []int64 `json:"gone_ids,omitempty"`
	Truncated bool    `json:"truncated,omitempty"`
}

// TimelineReport is what a timeline found, as of its last snapshot.
type TimelineReport struct {
	Schema    string             `json:"schema"`
	Snapshots []TimelineSnapshot `json:"snapshots"`
	// Dropped counts the oldest snapshots no longer described
	// (TimelineOptions.KeepSnapshots).
	Dropped int `json:"dropped,omitempty"`
	// Span is the time from the first snapshot's capture to the last's;
	// zero when either time is unknown.
	Span time.Duration `json:"-"`
	// NoIDs is set when routines had no id (grouped inputs): they cannot be
	// followed, and only the groups say anything about them.
	NoIDs bool `json:"no_ids,omitempty"`
	// Stuck lists routines unchanged in every snapshot (same id, state and
	// stack), grouped by state and stack, longest stuck first (rows without
	// frames last); StuckTotal
	// counts the routines of all rows, listed or not. Empty with fewer
	// than two snapshots.
	Stuck      []StuckRow `json:"stuck"`
	StuckTotal int        `json:"stuck_total"`
	// Busiest lists the JVM threads that used the most CPU time between
	// snapshots (cpu=…ms deltas), including threads that went away.
	Busiest []BusyThread `json:"busiest"`
	// Groups follows the largest groups of the last snapshot, and the
	// groups that were larger earlier, over the kept snapshots.
	Groups []GroupSeries `json:"groups"`
}

// StuckRow is a set of stuck routines that share a state and a stack.
type StuckRow struct {
	Count int    `json:"count"`
	State string `json:"state,omitempty"`
	// For is how long they have been stuck, at least: the longer of
	// Observed, the time between the captures of the first and the last
	// snapshot, and WaitMinutes, the runtime's own wait time in the last
	// snapshot (Go; the longest of the row).
	For         time.Duration `json:"-"`
	Observed    time.Duration `json:"-"`
	WaitMinutes int           `json:"wait_minutes,omitempty"`
	// Frame is where they are (the first frame outside the runtime and the
	// blocking primitives), Stack their whole stack.
	Frame *FrameRef  `json:"frame,omitempty"`
	Stack []FrameRef `json:"stack,omitempty"`
	// IDs and Names are the first members' ids and (JVM) thread names.
	IDs   []int64  `json:"ids,omitempty"`
	Names []string `json:"names,omitempty"`
}

// BusyThread is a JVM thread and the CPU time it used between snapshots.
type BusyThread struct {
	ID    int64         `json:"id,omitempty"`
	OSID  int64         `json:"os_id,omitempty"`
	Name  string        `json:"name,omitempty"`
	CPU   time.Duration `json:"-"`
	State string        `json:"state,omitempty"`
	Frame *FrameRef     `json:"frame,omitempty"`
	// Gone is set when the thread is not in the last snapshot.
	Gone bool `json:"gone,omitempty"`
}

// GroupSeries is a group of identical stacks and its size in each kept
// snapshot, oldest first.
type GroupSeries struct {
	Key    string    `json:"key"`
	State  string    `json:"state,omitempty"`
	Frame  *FrameRef `json:"frame,omitempty"`
	Counts []int64   `json:"counts"`
	max    int64
}

// addGroups appends the current snapshot's group counts to every series.
func (t *Timeline) addGroups(groups []*stack.Group) {
	n := len(t.snaps) // kept snapshots before this one
	for _, g := range groups {
		s := t.groups[g.Key]
		if s == nil {
			s = &GroupSeries{Key: g.Key, Counts: make([]int64, n, n+1)}
			t.groups[g.Key] = s
		}
		s.State = dedupe.MainState(g)
		if g.Sample != nil {
			s.Frame = frameRef(whereFrame(g.Sample.Stack))
		}
	}
	counts := make(map[string]int64, len(groups))
	for _, g := range groups {
		counts[g.Key] = g.Count
	}
	for k, s := range t.groups {
		c := counts[k]
		s.Counts = append(s.Counts, c)
		s.max = max(s.max, c)
	}
}

// dropOldest forgets the n oldest snapshots and the groups that were in
// none of the others.
func (t *Timeline) dropOldest(n int) {
	t.snaps = slices.Delete(t.snaps, 0, n)
	for k, s := range t.groups {
		s.Counts = slices.Delete(s.Counts, 0, n)
		s.max = slices.Max(s.Counts)
		if s.max == 0 {
			delete(t.groups, k)
		}
	}
}

// Report describes the timeline as of its last snapshot. It may be called
// between snapshots, as often as wanted.
func (t *Timeline) Report() *TimelineReport {
	rep := &TimelineReport{
		Schema:    TimelineSchema,
		Snapshots: slices.Clone(t.snaps),
		Dropped:   t.seq - len(t.snaps),
		NoIDs:     t.noIDs,
		Stuck:     []StuckRow{},
		Busiest:   []BusyThread{},
		Groups:    []GroupSeries{},
	}
	var last time.Time
	if len(t.snaps) > 0 {
		last = t.snaps[len(t.snaps)-1].CapturedAt
	}
	if !t.first.IsZero() && !last.IsZero() && last.After(t.first) {
		rep.Span = last.Sub(t.first)
	}
	if t.seq >= 2 {
		rep.Stuck, rep.StuckTotal = t.stuck(last)
		if len(rep.Stuck) > t.opts.MaxStuck {
			rep.Stuck = rep.Stuck[:t.opts.MaxStuck]
		}
	}
	rep.Busiest = t.busiest()
	rep.Groups = t.groupRows()
	return rep
}

// stuck groups the routines unchanged since the first snapshot by state
// and stack.
func (t *Timeline) stuck(last time.Time) ([]StuckRow, int) {
	type rowKey struct {
		state string
		hash  uint64
	}
	rows := map[rowKey]*StuckRow{}
	members := map[rowKey][]*tracked{}
	total := 0
	for _, tr := range t.live {
		if tr.since != 0 {
			continue
		}
		total++
		k := rowKey{tr.state, tr.hash}
		members[k] = append(members[k], tr)
		if rows[k] == nil {
			row := &StuckRow{State: tr.state, Frame: frameRef(whereFrame(tr.stack))}
			for _, f := range tr.stack.Frames {
				row.Stack = append(row.Stack, *frameRef(f))
			}
			if !tr.sinceAt.IsZero() && last.After(tr.sinceAt) {
				row.Observed = last.Sub(tr.sinceAt)
			}
			rows[k] = row
		}
	}
	out := make([]StuckRow, 0, len(rows))
	for k, row := range rows {
		ms := members[k]
		slices.SortFunc(ms, func(a, b *tracked) int {
			return cmp.Or(cmp.Compare(a.key.id, b.key.id), cmp.Compare(a.key.osid, b.key.osid), strings.Compare(a.key.name, b.key.name))
		})
		row.Count = len(ms)
		for _, m := range ms {
			row.WaitMinutes = max(row.WaitMinutes, m.wait)
			if len(row.IDs) < timelineIDs && m.key.id != 0 {
				row.IDs = append(row.IDs, m.key.id)
			}
			if len(row.Names) < timelineIDs && m.key.name != "" {
				row.Names = append(row.Names, m.key.name)
			}
		}
		row.For = max(row.Observed, time.Duration(row.WaitMinutes)*time.Minute)
		out = append(out, *row)
	}
	// Rows without frames (JVM threads with no Java stack: compiler, GC,
	// VM threads) come after those that show where they are.
	noFrames := func(r StuckRow) int {
		if len(r.Stack) == 0 {
			return 1
		}
		return 0
	}
	slices.SortFunc(out, func(a, b StuckRow) int {
		return cmp.Or(cmp.Compare(noFrames(a), noFrames(b)), cmp.Compare(b.For, a.For), cmp.Compare(b.Count, a.Count), strings.Compare(a.State, b.State), cmpFrames(a.Stack, b.Stack))
	})
	return out, total
}

func cmpFrames(a, b []FrameRef) int {
	return slices.CompareFunc(a, b, func(x, y FrameRef) int {
		return cmp.Or(strings.Compare(x.Func, y.Func), strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
}

// busiest merges the live threads and the retired ones, most CPU first.
func (t *Timeline) busiest() []BusyThread {
	out := slices.Clone(t.retired)
	for _, tr := range t.live {
		if tr.work > 0 {
			out = append(out, busyThread(tr, false))
		}
	}
	sortBusy(out)
	if len(out) > t.opts.Top {
		out = out[:t.opts.Top]
	}
	if out == nil {
		out = []BusyThread{}
	}
	return out
}

func busyThread(tr *tracked, gone bool) BusyThread {
	return BusyThread{
		ID: tr.key.id, OSID: tr.key.osid, Name: tr.key.name, CPU: tr.work,
		State: tr.state, Frame: frameRef(dedupe.TopFrame(tr.stack)), Gone: gone,
	}
}

// groupRows returns the Top series with the largest count in the last
// snapshot, then the largest earlier.
func (t *Timeline) groupRows() []GroupSeries {
	out := make([]GroupSeries, 0, len(t.groups))
	for _, s := range t.groups {
		out = append(out, *s)
	}
	last := func(s GroupSeries) int64 {
		if len(s.Counts) == 0 {
			return 0
		}
		return s.Counts[len(s.Counts)-1]
	}
	slices.SortFunc(out, func(a, b GroupSeries) int {
		return cmp.Or(cmp.Compare(last(b), last(a)), cmp.Compare(b.max, a.max), strings.Compare(a.Key, b.Key))
	})
	if len(out) > t.opts.Top {
		out = out[:t.opts.Top]
	}
	for i := range out {
		out[i].Counts = slices.Clone(out[i].Counts)
	}
	return out
}

// MarshalJSON writes the durations in milliseconds: for_ms, observed_ms.
func (r StuckRow) MarshalJSON() ([]byte, error) {
	type plain StuckRow
	return json.Marshal(struct {
		plain
		ForMS      int64 `json:"for_ms"`
		ObservedMS int64 `json:"observed_ms"`
	}{plain(r), r.For.Milliseconds(), r.Observed.Milliseconds()})
}

// MarshalJSON writes the CPU time in milliseconds: cpu_ms.
func (b BusyThread) MarshalJSON() ([]byte, error) {
	type plain BusyThread
	return json.Marshal(struct {
		plain
		CPUMS int64 `json:"cpu_ms"`
	}{plain(b), b.CPU.Milliseconds()})
}

// MarshalJSON writes the span in milliseconds: span_ms.
func (r TimelineReport) MarshalJSON() ([]byte, error) {
	type plain TimelineReport
	return json.Marshal(struct {
		plain
		SpanMS int64 `json:"span_ms"`
	}{plain(r), r.Span.Milliseconds()})
}
