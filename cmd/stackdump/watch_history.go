package main

import (
	"cmp"
	"slices"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// watchHistory follows one target's group counts across snapshots by group
// key. Its memory does not grow with the number of snapshots: it follows at
// most 2×top groups (the largest, and as many growing ones, which may become
// leak suspects), keeps each one's last depth counts, and of every other
// group only its count in the last snapshot (to see it grow).
type watchHistory struct {
	top   int // groups followed by size, and as many by growth
	depth int // counts kept per group: the suspect rule's leakAfter+1

	snapshots  int
	firstTotal int64
	peakTotal  int64   // the largest total so far
	peakAt     int     // the number of the snapshot that had it (as the table numbers them)
	totals     []int64 // the last depth totals, oldest first
	series     map[string]*groupSeries
	prev       map[string]int64 // every group's count in the last snapshot
}

// groupSeries is one followed group.
type groupSeries struct {
	first  int64   // count when the group was first followed (0 if it appeared then)
	counts []int64 // the last depth counts, oldest first
	peak   int64   // the largest count since the group was followed
	state  string  // the group's most common state (kept from the last snapshot that had states)
	wait   string  // the call it waits in, shown while no state is known (counts)
	top    string  // where it is, by the one naming rule (groupWhere)
	fn     string  // the function that names it (dedupe.NameFrame)
	// leaked is how many of its goroutines the runtime proved leaked in
	// the last leak profile (or (leaked) states) that showed the group.
	leaked int64
}

// newWatchHistory returns a history that follows top groups by size and
// flags groups that grew in each of the last leakAfter snapshots.
func newWatchHistory(top, leakAfter int) *watchHistory {
	return &watchHistory{top: max(top, 1), depth: max(leakAfter+1, 2), series: map[string]*groupSeries{}}
}

// add records snapshot number n's groups; leakProfile says the snapshot
// is the goroutine leak profile, whose (leaked) counts replace the groups'
// last proof (other snapshots keep it unless they show (leaked) states
// too).
func (h *watchHistory) add(n int, total int64, groups []*stack.Group, leakProfile bool) {
	if h.snapshots == 0 {
		h.firstTotal = total
	}
	if h.snapshots == 0 || total > h.peakTotal {
		h.peakTotal, h.peakAt = total, n
	}
	h.totals = keepLast(append(h.totals, total), h.depth)
	now := make(map[string]int64, len(groups))
	for _, g := range groups {
		now[g.Key] = g.Count
	}
	followed := h.follow(groups)
	keys := make(map[string]bool, len(followed))
	for _, g := range followed {
		keys[g.Key] = true
		s := h.series[g.Key]
		if s == nil {
			s = &groupSeries{}
			if n, ok := h.prev[g.Key]; ok {
				s.first, s.counts = n, []int64{n}
			} else if h.snapshots > 0 {
				s.counts = []int64{0} // new since the last snapshot: grown from none
			} else {
				s.first = g.Count
			}
			h.series[g.Key] = s
		}
		s.counts = keepLast(append(s.counts, g.Count), h.depth)
		s.peak = max(s.peak, s.first, g.Count)
		if leakProfile || g.Leaked > 0 {
			s.leaked = g.Leaked
		}
		if state := dedupe.MainState(g); state != "" || len(g.States) > 0 {
			s.state = state // counts (debug=1) have no states: the last known stays
		}
		s.top = groupWhere(g)
		s.fn, s.wait = "", ""
		if g.Sample != nil {
			if f := dedupe.NameFrame(g.Sample.Stack); f != nil {
				s.fn = f.Func
			}
			s.wait = waitCall(g.Sample.Stack)
		}
	}
	for k := range h.series {
		if !keys[k] {
			delete(h.series, k) // gone, or no longer among the largest or growing
		}
	}
	h.prev = now
	h.snapshots++
}

// follow picks the groups to follow: the top largest, and up to top of the
// groups that grew since the last snapshot, those already followed (whose
// growth streak counts) first, then by growth.
func (h *watchHistory) follow(groups []*stack.Group) []*stack.Group {
	bySize := slices.Clone(groups)
	slices.SortFunc(bySize, func(a, b *stack.Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
	picked := bySize[:min(len(bySize), h.top)]
	var grown []*stack.Group
	for _, g := range bySize[len(picked):] {
		if g.Count > h.prev[g.Key] && h.snapshots > 0 {
			grown = append(grown, g)
		}
	}
	slices.SortFunc(grown, func(a, b *stack.Group) int {
		_, fa := h.series[a.Key]
		_, fb := h.series[b.Key]
		if fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Count-h.prev[b.Key], a.Count-h.prev[a.Key]), cmp.Compare(a.Key, b.Key))
	})
	return append(slices.Clip(picked), grown[:min(len(grown), h.top)]...)
}

// keepLast returns the last n elements of s, reusing its array.
func keepLast(s []int64, n int) []int64 {
	if len(s) <= n {
		return s
	}
	return append(s[:0], s[len(s)-n:]...)
}

// total is the last snapshot's total; prevTotal the one before (or the
// last when there is one snapshot).
func (h *watchHistory) total() int64     { return h.totals[len(h.totals)-1] }
func (h *watchHistory) prevTotal() int64 { return h.totals[max(0, len(h.totals)-2)] }

// suspect reports whether key grew in each of the last k snapshots.
func (h *watchHistory) suspect(key string, k int) bool {
	s := h.series[key]
	if s == nil || k < 1 || len(s.counts) < k+1 {
		return false
	}
	for i := len(s.counts) - k; i < len(s.counts); i++ {
		if s.counts[i] <= s.counts[i-1] {
			return false
		}
	}
	return true
}

// watchRow is one group's line in the table and in --json output.
type watchRow struct {
	Key        string `json:"key"`
	Count      int64  `json:"count"`
	DeltaLast  int64  `json:"delta_last"`
	DeltaFirst int64  `json:"delta_first"`
	State      string `json:"state"`
	// Wait is, for a group no snapshot gave a state (counts alone), the
	// call its goroutines wait in: the function just inside Top's.
	Wait string `json:"wait,omitempty"`
	// Top names the group by the one rule of every table
	// (dedupe.PlaceOf): the program's code it is in, with the standard
	// library's waiting call under it as detail.
	Top     string `json:"top"`
	Suspect bool   `json:"suspect"`
	// Leaked is how many of the group's goroutines the runtime proved
	// leaked (the last leak profile, see --leak-every, or (leaked) states).
	Leaked int64 `json:"leaked"`
	// Proven is set for a suspect (a growing group) that is also proven
	// leaked: the strongest signal watch gives.
	Proven bool `json:"proven"`
	fn     string
}

// rank orders rows: growing and proven, proven, suspect, the rest.
func (r watchRow) rank() int {
	switch {
	case r.Proven:
		return 0
	case r.Leaked > 0:
		return 1
	case r.Suspect:
		return 2
	}
	return 3
}

// rows returns the followed groups, proven leaks first (growing ones
// first), then suspects, then by count.
func (h *watchHistory) rows(leakAfter int) []watchRow {
	rows := make([]watchRow, 0, len(h.series))
	for k, s := range h.series {
		n := s.counts[len(s.counts)-1]
		r := watchRow{Key: k, Count: n, DeltaFirst: n - s.first, State: s.state, Top: s.top, Suspect: h.suspect(k, leakAfter), Leaked: s.leaked, fn: s.fn}
		if r.State == "" && s.wait != "" {
			r.Wait = s.wait // counts: no state, but the call it waits in
		}
		r.Proven = r.Suspect && r.Leaked > 0
		if len(s.counts) > 1 {
			r.DeltaLast = n - s.counts[len(s.counts)-2]
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b watchRow) int {
		return cmp.Or(cmp.Compare(a.rank(), b.rank()), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
	return rows
}

// waitCall is the function a routine of stack s called from the frame
// that names it (dedupe.NameFrame) and waits in: "sync.(*Mutex).Lock",
// "runtime.chanrecv1", "time.Sleep"; "" when that frame is the innermost.
// It is what counts (debug=1), which have no state, show of a wait.
func waitCall(s *stack.Stack) string {
	name := dedupe.NameFrame(s)
	for i, f := range s.Frames {
		if f == name && i > 0 {
			if in := s.Frames[i-1]; in.Func != "runtime.gopark" && in.Func != "runtime.goparkunlock" {
				return in.Func
			}
			return ""
		}
	}
	return ""
}
