package analyze

import (
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// maxLeakHistory is how many earlier dumps of a target a LeakHistory
// remembers.
const maxLeakHistory = 16

// LeakHistory remembers, per target, how many members each group had in
// the dumps summarised before (all of them, and those parked on
// channels), so that a group's growth across snapshots of one process
// counts as evidence (Options.History): of a leak, and as a growth
// finding. Dumps of one target are those with the same Source.Target
// (files without one are one target). Share one history across the dumps
// of a run, oldest first; it keeps the last 16 dumps of each target: each
// group's counts and longest wait, each dump's time and total, and the
// smallest 100 ids of each group of the last dump (growth.go says why). It
// is not safe for concurrent use.
type LeakHistory struct {
	targets map[string]*targetHistory
}

type targetHistory struct {
	dumps int // dumps recorded, at most maxLeakHistory
	seq   int // dumps recorded in all
	// blocked and total map a group key to its members parked on
	// channels, and to all its members, one count per dump, oldest first;
	// waits to its longest wait in minutes.
	blocked, total, waits map[string][]int64
	// at, totals, noWaits and noIDs are per dump: its capture time, its
	// routines, and whether it lacked wait minutes or ids.
	at             []time.Time
	totals         []int64
	noWaits, noIDs []bool
	// members follows the ids of the groups.
	members map[string]*members
}

// NewLeakHistory returns an empty history.
func NewLeakHistory() *LeakHistory {
	return &LeakHistory{targets: make(map[string]*targetHistory)}
}

// earlier returns the blocked counts of key in the dumps of target
// recorded so far, oldest first (0 where it was absent); nil when none
// was recorded.
func (h *LeakHistory) earlier(target, key string) []int64 {
	return h.series(target, key, func(th *targetHistory) map[string][]int64 { return th.blocked })
}

func waitsOf(th *targetHistory) map[string][]int64 { return th.waits }

// earlierTotal is earlier for all the members.
func (h *LeakHistory) earlierTotal(target, key string) []int64 {
	return h.series(target, key, func(th *targetHistory) map[string][]int64 { return th.total })
}

func (h *LeakHistory) series(target, key string, of func(*targetHistory) map[string][]int64) []int64 {
	if h == nil {
		return nil
	}
	th := h.targets[target]
	if th == nil || th.dumps == 0 {
		return nil
	}
	if c, ok := of(th)[key]; ok {
		return c
	}
	return make([]int64, th.dumps)
}

// growth returns the growth cases of the groups of d, a dump of target
// not recorded yet, with their earlier dumps, and what the dumps said of
// the process; nil when no earlier dump of target was recorded.
func (h *LeakHistory) growth(d *stack.Dump, groups []*stack.Group, missing []string) ([]growthCase, growthProcess) {
	if h == nil {
		return nil, growthProcess{}
	}
	th := h.targets[d.Source.Target]
	if th == nil || th.dumps == 0 {
		return nil, growthProcess{}
	}
	p := growthProcess{
		totals: append(slices.Clone(th.totals), d.Total),
		at:     append(slices.Clone(th.at), d.Source.CapturedAt),
		waits:  !slices.Contains(th.noWaits, true) && !slices.Contains(missing, "wait_minutes"),
		ids:    !slices.Contains(th.noIDs, true) && !slices.Contains(missing, "ids"),
		unit:   "dump",
		noun:   nounOf(d.Source.Kind),
	}
	first := th.seq - th.dumps // the series' first dump
	cases := make([]growthCase, 0, len(groups))
	for _, g := range groups {
		c := growthCase{key: g.Key, listed: -1, counts: append(slices.Clone(h.earlierTotal(d.Source.Target, g.Key)), g.Count)}
		if flat(c.counts) {
			c.frame = frameRef(dedupe.GroupPlace(g).Frame) // a peer of the groups that grew
		}
		if grows(c.counts) {
			row := groupRow(g)
			c.state, c.frame, c.wait, c.ids = row.State, row.Frame, row.Wait, row.IDs
			c.waits = append(slices.Clone(h.series(d.Source.Target, g.Key, waitsOf)), int64(g.WaitMax))
			c.outside = groupOutsideWait(g)
			if p.ids {
				c.listed, c.kept = th.kept(g, c.counts[0], first)
			}
		}
		cases = append(cases, c)
	}
	return cases, p
}

// kept says, of group g of the dump about to be recorded, how many ids
// its first dump of the history listed (it had first members in dump
// seq first), and how many of those are in g and were in the group in
// every dump since; listed is 0 when that is unknown.
func (th *targetHistory) kept(g *stack.Group, firstCount int64, first int) (listed, kept int) {
	m := th.members[g.Key]
	if m == nil || m.from > first {
		return 0, 0 // not followed since the first dump
	}
	return int(min(firstCount, memberIDs)), m.keptIn(g.IDs, first)
}

// keptSince is targetHistory.kept for a leak suspect's group, from the
// first dump of its target's history; listed is 0 when unknown.
func (h *LeakHistory) keptSince(target string, g *stack.Group, missing []string) (listed, kept int) {
	th := h.targets[target]
	if th == nil || th.dumps == 0 || slices.Contains(th.noIDs, true) || slices.Contains(missing, "ids") {
		return 0, 0
	}
	return th.kept(g, h.earlierTotal(target, g.Key)[0], th.seq-th.dumps)
}

// record adds a dump's groups to the history of its target; missing says
// what the dump's input cannot carry (Summary.Missing).
func (h *LeakHistory) record(d *stack.Dump, groups []*stack.Group, missing []string) {
	if h == nil {
		return
	}
	target := d.Source.Target
	th := h.targets[target]
	if th == nil {
		th = &targetHistory{blocked: make(map[string][]int64), total: make(map[string][]int64),
			waits: make(map[string][]int64), members: make(map[string]*members)}
		h.targets[target] = th
	}
	blocked, total, waits := make(map[string]int64), make(map[string]int64), make(map[string]int64)
	for _, g := range groups {
		if n := chanBlocked(g); n > 0 {
			blocked[g.Key] += n
		}
		total[g.Key] += g.Count
		waits[g.Key] = max(waits[g.Key], int64(g.WaitMax))
		if len(g.IDs) > 0 {
			m := th.members[g.Key]
			if m == nil {
				m = newMembers(th.seq)
				th.members[g.Key] = m
			}
			m.update(g.IDs, th.seq)
		}
	}
	for k := range th.members {
		if _, ok := total[k]; !ok {
			delete(th.members, k) // gone: followed afresh if it comes back
		}
	}
	appendDump(th.blocked, blocked, th.dumps)
	appendDump(th.total, total, th.dumps)
	appendDump(th.waits, waits, th.dumps)
	th.at = appendLast(th.at, d.Source.CapturedAt)
	th.totals = appendLast(th.totals, d.Total)
	th.noWaits = appendLast(th.noWaits, slices.Contains(missing, "wait_minutes"))
	th.noIDs = appendLast(th.noIDs, slices.Contains(missing, "ids"))
	th.dumps = min(th.dumps+1, maxLeakHistory)
	th.seq++
}

// appendLast appends v to s, keeping the last maxLeakHistory values.
func appendLast[T any](s []T, v T) []T {
	s = append(s, v)
	if len(s) > maxLeakHistory {
		s = s[len(s)-maxLeakHistory:]
	}
	return s
}

// appendDump adds one dump's counts to every series.
func appendDump(series map[string][]int64, now map[string]int64, dumps int) {
	for k := range now {
		if _, ok := series[k]; !ok {
			series[k] = make([]int64, dumps)
		}
	}
	for k, c := range series {
		c = append(c, now[k])
		if len(c) > maxLeakHistory {
			c = c[len(c)-maxLeakHistory:]
		}
		series[k] = c
		if allZero(c) {
			delete(series, k) // gone from every remembered dump
		}
	}
}

func allZero(c []int64) bool {
	for _, n := range c {
		if n != 0 {
			return false
		}
	}
	return true
}

// seriesTrend reads counts across dumps, oldest first: rose when they
// never fell and the last is above the first, fell when they fell between
// two dumps.
func seriesTrend(series []int64) (rose, fell bool) {
	if len(series) < 2 {
		return false, false
	}
	for i := 1; i < len(series); i++ {
		fell = fell || series[i] < series[i-1]
	}
	return !fell && series[len(series)-1] > series[0], fell
}

// seriesText is "12 → 40 → 90", the first and last three counts when
// there are more than six.
func seriesText(series []int64) string {
	parts := make([]string, 0, len(series))
	for i, n := range series {
		if len(series) > 6 && i >= 3 && i < len(series)-3 {
			if i == 3 {
				parts = append(parts, "…")
			}
			continue
		}
		parts = append(parts, itoa(n))
	}
	return strings.Join(parts, " → ")
}
