package analyze

import (
	"strings"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// maxLeakHistory is how many earlier dumps of a target a LeakHistory
// remembers.
const maxLeakHistory = 16

// LeakHistory remembers, per target, how many members of each group
// were parked on channels in the dumps summarised before, so that a
// suspect's growth across snapshots of one process counts as evidence
// (Options.History). Dumps of one target are those with the same
// Source.Target (files without one are one target). Share one history
// across the dumps of a run, oldest first; it keeps the last 16 dumps of
// each target, and only groups with members parked on a channel. It is
// not safe for concurrent use.
type LeakHistory struct {
	targets map[string]*targetHistory
}

type targetHistory struct {
	dumps  int                // dumps recorded, at most maxLeakHistory
	counts map[string][]int64 // group key → blocked members, one per dump, oldest first
}

// NewLeakHistory returns an empty history.
func NewLeakHistory() *LeakHistory {
	return &LeakHistory{targets: make(map[string]*targetHistory)}
}

// earlier returns the blocked counts of key in the dumps of target
// recorded so far, oldest first (0 where it was absent); nil when none
// was recorded.
func (h *LeakHistory) earlier(target, key string) []int64 {
	if h == nil {
		return nil
	}
	th := h.targets[target]
	if th == nil || th.dumps == 0 {
		return nil
	}
	if c, ok := th.counts[key]; ok {
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
		th = &targetHistory{counts: make(map[string][]int64)}
		h.targets[target] = th
	}
	now := make(map[string]int64)
	for _, g := range groups {
		if n := chanBlocked(g); n > 0 {
			now[g.Key] += n
		}
	}
	for k := range now {
		if _, ok := th.counts[k]; !ok {
			th.counts[k] = make([]int64, th.dumps)
		}
	}
	for k, c := range th.counts {
		c = append(c, now[k])
		if len(c) > maxLeakHistory {
			c = c[len(c)-maxLeakHistory:]
		}
		th.counts[k] = c
	}
	th.dumps = min(th.dumps+1, maxLeakHistory)
	for k, c := range th.counts {
		if allZero(c) {
			delete(th.counts, k) // gone from every remembered dump
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

// growth reads a suspect's blocked counts across the dumps, oldest first,
// the last one this dump's: +2 when they never fell and rose overall (a
// leak only grows), -2 when they fell between two dumps (churn: what
// leaked would still be there), 0 when steady.
func growth(series []int64) (points int, reason string) {
	if len(series) < 2 {
		return 0, ""
	}
	fell := false
	for i := 1; i < len(series); i++ {
		fell = fell || series[i] < series[i-1]
	}
	text := seriesText(series)
	switch {
	case fell:
		return -2, "fell between dumps (" + text + "): a leak only grows"
	case series[len(series)-1] > series[0]:
		return 2, "grew across " + words.Count(len(series), "dump") + " (" + text + ")"
	}
	return 0, ""
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
