package analyze

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/internal/words"
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
	// Stuck lists the routines that kept their state and stack without
	// progress (see the package doc) over the longest run of consecutive
	// snapshots ending at the last one, two snapshots at least, grouped
	// by state, stack and the run's first snapshot, longest stuck first
	// (rows without frames last); StuckTotal counts the routines of all
	// rows, listed or not. Empty with fewer than two snapshots.
	// Housekeeping routines are not among them.
	Stuck      []StuckRow `json:"stuck"`
	StuckTotal int        `json:"stuck_total"`
	// Housekeeping lists, as Stuck does, the unchanged routines that are
	// the platform's own idle work (StuckRow.Why says which kind), and
	// HousekeepingTotal counts them.
	Housekeeping      []StuckRow `json:"housekeeping"`
	HousekeepingTotal int        `json:"housekeeping_total"`
	// Idle lists, as Stuck does, the unchanged routines of the program
	// whose wait is idle (StuckRow.Why: IdleNetwork, IdleTimer, IdleWait,
	// IdleNative), and IdleTotal counts them: not stuck.
	Idle      []StuckRow `json:"idle"`
	IdleTotal int        `json:"idle_total"`
	// Findings are the timeline's verdicts, each with its evidence: a
	// stuck finding per stuck row, the deadlocks of the last snapshot
	// (those the JVM reported, the lock cycles of goroutines), and the
	// groups that grew across three snapshots or more without falling.
	Findings []Finding `json:"findings"`
	// Busiest lists the JVM threads that used the most CPU time between
	// snapshots (cpu=…ms deltas), including threads that went away.
	Busiest []BusyThread `json:"busiest"`
	// Groups follows the largest groups of the last snapshot, and the
	// groups that were larger earlier, over the kept snapshots.
	Groups []GroupSeries `json:"groups"`
}

// StuckRow is a set of stuck routines that share a state, a stack and
// the snapshot their run started in.
type StuckRow struct {
	Count int    `json:"count"`
	State string `json:"state,omitempty"`
	// Since is the index of the first snapshot of their run (0: they were
	// stuck in every snapshot), Snapshots how many snapshots it spans, up
	// to the last one.
	Since     int `json:"since"`
	Snapshots int `json:"snapshots"`
	// Why is, for stuck rows, why they are stuck ("deadlocked", "lock": a
	// lock no one released, "no-sender": a channel no one can serve,
	// "grows": parked on a channel while their group only grew); for
	// housekeeping rows, what kind of platform work they are
	// (HousekeepingNoStack, HousekeepingPool, HousekeepingPlatform); for
	// idle rows, what they wait for (IdleNetwork, IdleTimer, IdleWait,
	// IdleNative).
	Why string `json:"why,omitempty"`
	// For is how long they have been stuck, at least: the longer of
	// Observed, the time between the captures of the run's first snapshot
	// and the last one, and WaitMinutes, the runtime's own wait time in
	// the last snapshot (Go; the longest of the row).
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
	// First, Peak and Last are its counts in the first kept snapshot, at
	// its largest and in the last one; PeakAt is the index in Counts of
	// the first snapshot where it peaked.
	First  int64 `json:"first"`
	Peak   int64 `json:"peak"`
	PeakAt int   `json:"peak_at"`
	Last   int64 `json:"last"`
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
		s.Peak = max(s.Peak, c)
	}
	t.followGroups(groups, n)
}

// followGroups records, for growth, each group's longest wait and its
// members in the current snapshot (the n+1st kept).
func (t *Timeline) followGroups(groups []*stack.Group, n int) {
	now := make(map[string]*stack.Group, len(groups))
	for _, g := range groups {
		now[g.Key] = g
		f := t.follow[g.Key]
		if f == nil {
			f = &groupFollow{waits: make([]int64, n, n+1)}
			t.follow[g.Key] = f
		}
		f.outside = groupOutsideWait(g)
		f.ids = slices.Clone(g.IDs[:min(len(g.IDs), maxRowIDs)]) // not the grouper's whole list
		if g.Sample != nil {
			f.wait = frameRef(dedupe.PlaceOf(g.Sample.Stack).Wait)
		}
		if len(g.IDs) > 0 {
			if f.members == nil {
				f.members = newMembers(t.seq)
			}
			f.members.update(g.IDs, t.seq)
		} else {
			f.members = nil
		}
	}
	for k, f := range t.follow {
		g := now[k]
		if g == nil {
			f.waits = append(f.waits, 0)
			f.members = nil // gone: followed afresh if it comes back
			continue
		}
		f.waits = append(f.waits, int64(g.WaitMax))
	}
}

// dropOldest forgets the n oldest snapshots and the groups that were in
// none of the others.
func (t *Timeline) dropOldest(n int) {
	t.snaps = slices.Delete(t.snaps, 0, n)
	t.snapInputs = slices.Delete(t.snapInputs, 0, n)
	for k, s := range t.groups {
		s.Counts = slices.Delete(s.Counts, 0, n)
		s.Peak = slices.Max(s.Counts)
		if s.Peak == 0 {
			delete(t.groups, k)
			delete(t.follow, k)
			continue
		}
		if f := t.follow[k]; f != nil {
			f.waits = slices.Delete(f.waits, 0, n)
		}
	}
}

// Report describes the timeline as of its last snapshot. It may be called
// between snapshots, as often as wanted.
func (t *Timeline) Report() *TimelineReport {
	rep := &TimelineReport{
		Schema:       TimelineSchema,
		Snapshots:    slices.Clone(t.snaps),
		Dropped:      t.seq - len(t.snaps),
		NoIDs:        t.noIDs,
		Stuck:        []StuckRow{},
		Housekeeping: []StuckRow{},
		Idle:         []StuckRow{},
		Findings:     []Finding{},
		Busiest:      []BusyThread{},
		Groups:       []GroupSeries{},
	}
	var last time.Time
	if len(t.snaps) > 0 {
		last = t.snaps[len(t.snaps)-1].CapturedAt
	}
	if !t.first.IsZero() && !last.IsZero() && last.After(t.first) {
		rep.Span = last.Sub(t.first)
	}
	if t.seq >= 2 {
		rep.Stuck, rep.StuckTotal, rep.Housekeeping, rep.HousekeepingTotal, rep.Idle, rep.IdleTotal = t.stuckRows(last)
		rep.Findings = append(rep.Findings, stuckFindings(rep.Stuck, t.routineNoun())...)
		rep.Stuck = rep.Stuck[:min(len(rep.Stuck), t.opts.MaxStuck)]
		rep.Housekeeping = rep.Housekeeping[:min(len(rep.Housekeeping), t.opts.MaxStuck)]
		rep.Idle = rep.Idle[:min(len(rep.Idle), t.opts.MaxStuck)]
	}
	rep.Findings = append(rep.Findings, t.deadlocks...)
	rep.Findings = append(rep.Findings, t.growthFindings()...)
	sortFindings(rep.Findings)
	rep.Busiest = t.busiest()
	rep.Groups = t.groupRows()
	return rep
}

// routineNoun is "goroutine" or "thread", as the last snapshot says.
func (t *Timeline) routineNoun() string {
	if len(t.snaps) > 0 && routineNoun(t.snaps[len(t.snaps)-1].Kind) == "threads" {
		return "thread"
	}
	return "goroutine"
}

// stuckFindings describes each stuck row as a finding.
func stuckFindings(rows []StuckRow, noun string) []Finding {
	var out []Finding
	for _, r := range rows {
		f := Finding{Kind: FindingStuck, Confidence: Likely,
			Subject: Subject{Count: int64(r.Count), State: r.State, Frame: r.Frame, IDs: r.IDs, Names: r.Names}}
		span := words.Count(r.Snapshots, "snapshot")
		if r.Observed > 0 {
			span += " over " + durationText(r.Observed)
		}
		noProgress := Evidence{Kind: EvidenceNoProgress, Text: "the same state and stack in " + span + ", with no CPU time used or wait restarted"}
		switch r.Why {
		case "deadlocked":
			f.Confidence = Certain
			f.Claim = fmt.Sprintf("%s stuck in a deadlock at %s", words.Count(r.Count, noun), placeText(r.Frame))
			f.Evidence = []Evidence{{Kind: EvidenceLockCycle, Text: "in a deadlock of the last snapshot: it can never proceed"}, noProgress}
		case "lock":
			f.Claim = fmt.Sprintf("%s stuck waiting for a lock at %s", words.Count(r.Count, noun), placeText(r.Frame))
			f.Evidence = []Evidence{noProgress, {Kind: EvidenceHolder, Text: "waiting to acquire a lock all along: no one released it"}}
			f.WouldProve = "the holder's stack (stackdump analyze on the last snapshot names it when the arguments show it)"
		case "grows":
			f.Claim = fmt.Sprintf("%s stuck at %s while their group grows", words.Count(r.Count, noun), placeText(r.Frame))
			f.Evidence = []Evidence{noProgress, {Kind: EvidenceGrowth, Text: "parked on a channel or a select while more goroutines of the same stack joined them and none of them left: what they wait for does not come"}}
			f.WouldProve = proveByLeakProf
		default:
			f.Claim = fmt.Sprintf("%s stuck on a channel no one can serve at %s", words.Count(r.Count, noun), placeText(r.Frame))
			f.Evidence = []Evidence{noProgress, {Kind: EvidenceNoSender, Text: "what they wait on is carried by no other goroutine of the dump"}}
			f.WouldProve = proveByLeakProf
		}
		if r.WaitMinutes > 0 {
			f.Evidence = append(f.Evidence, Evidence{Kind: EvidenceWaitAge, Text: "blocked for " + words.Count(r.WaitMinutes, "minute") + " or more, as the runtime says"})
		}
		out = append(out, f)
	}
	return out
}

// growthFindings are the groups that grew across three kept snapshots or
// more, by the rule of growth.go.
func (t *Timeline) growthFindings() []Finding {
	if len(t.snaps) < growthMinDumps {
		return nil
	}
	p := growthProcess{unit: "snapshot", noun: t.routineNoun() + "s", waits: true, ids: true}
	for i, s := range t.snaps {
		p.totals = append(p.totals, s.Total)
		p.at = append(p.at, s.CapturedAt)
		p.waits = p.waits && !t.snapInputs[i].noWaits
		p.ids = p.ids && !t.snapInputs[i].noIDs
	}
	first := t.snaps[0].Index
	cases := make([]growthCase, 0, len(t.groups))
	for _, g := range t.groups {
		c := growthCase{key: g.Key, state: g.State, frame: g.Frame, counts: g.Counts, listed: -1}
		if f := t.follow[g.Key]; f != nil {
			c.waits, c.outside, c.wait, c.ids = f.waits, f.outside, f.wait, f.ids
			if m := f.members; p.ids && m != nil && m.from <= first {
				c.listed, c.kept = int(min(c.counts[0], memberIDs)), m.keptSince(first)
			}
		}
		cases = append(cases, c)
	}
	slices.SortFunc(cases, func(a, b growthCase) int { return strings.Compare(a.key, b.key) })
	return growthFindings(cases, p)
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
		State: tr.state, Frame: frameRef(whereFrame(tr.stack)), Gone: gone,
	}
}

// groupRows returns the Top series with the largest peak over the kept
// snapshots (then the largest in the last one), with their first, peak
// and last counts: a group that went 2000 → 2500 → 2000 → 0 ranks by its
// 2500.
func (t *Timeline) groupRows() []GroupSeries {
	out := make([]GroupSeries, 0, len(t.groups))
	for _, s := range t.groups {
		out = append(out, *s)
	}
	for i := range out {
		s := &out[i]
		if len(s.Counts) == 0 {
			continue
		}
		s.First, s.Last = s.Counts[0], s.Counts[len(s.Counts)-1]
		s.PeakAt = slices.Index(s.Counts, s.Peak)
	}
	slices.SortFunc(out, func(a, b GroupSeries) int {
		return cmp.Or(cmp.Compare(b.Peak, a.Peak), cmp.Compare(b.Last, a.Last), strings.Compare(a.Key, b.Key))
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
