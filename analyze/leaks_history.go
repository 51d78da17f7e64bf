package analyze

import (
	"strings"

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
// of a run, oldest first; it keeps the last 16 dumps of each target, and
// only groups with parked members. It is not safe for concurrent use.
type LeakHistory struct {
	targets map[string]*targetHistory
}

type targetHistory struct {
	dumps int // dumps recorded, at most maxLeakHistory
	// blocked and total map a group key to its members parked on
	// channels, and to all its members, one count per dump, oldest first.
	blocked, total map[string][]int64
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

// record adds a dump's groups to the history of target.
func (h *LeakHistory) record(target string, groups []*stack.Group) {
	if h == nil {
		return
	}
	th := h.targets[target]
	if th == nil {
		th = &targetHistory{blocked: make(map[string][]int64), total: make(map[string][]int64)}
		h.targets[target] = th
	}
	blocked, total := make(map[string]int64), make(map[string]int64)
	for _, g := range groups {
		if n := chanBlocked(g); n > 0 {
			blocked[g.Key] += n
		}
		total[g.Key] += g.Count
	}
	appendDump(th.blocked, blocked, th.dumps)
	appendDump(th.total, total, th.dumps)
	th.dumps = min(th.dumps+1, maxLeakHistory)
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
