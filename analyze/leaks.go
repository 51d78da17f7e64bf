package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// Two kinds of leak are reported.
//
// Leaked: goroutines the runtime itself marked `(leaked)`. A Go 1.26
// program built with GOEXPERIMENT=goroutineleakprofile (GA in Go 1.27)
// runs, when its goroutineleak profile is taken, a GC cycle that finds
// goroutines blocked on channels, locks or select that no runnable
// goroutine can reach; they can never wake up. These are certain.
//
// Likely leaks: a heuristic over the groups of any Go dump. A group is a
// suspect when at least LeakMinCount of its members are parked on a
// channel operation or a select ("chan receive", "chan send", "select",
// their "(nil chan)" and "(no cases)" forms; for inputs without states, a
// stack whose innermost runtime frames are chanrecv, chansend, selectgo or
// block). Worker pools look the same in a single dump, so a suspect is
// flagged only with evidence that it is not one, scored:
//
//	+2  its members were started by at least LeakMinParents distinct
//	    goroutines: a pool is started by one goroutine, a leak per request
//	    by each request's goroutine;
//	+1  most of those parents have exited: the goroutines that could have
//	    closed or drained the channel are gone;
//	+1  its members have been blocked for LeakMinWait minutes or more;
//	+1  it holds LeakLargeCount goroutines or more (+2 when the input has
//	    neither creators nor wait times to weigh: debug=1 and pprof);
//	+2  with earlier dumps of the same process (Options.History), its
//	    parked members never fell across them and rose overall: a leak
//	    only grows;
//	-2  they fell between two of those dumps: churn, not a leak.
//
// A suspect scoring 2 or more is a likely leak. Suspects are ranked by
// evidence, not by score: those that grew across dumps first, then the
// largest (parked members), then the longest waiting, then the score —
// so that a few dozen short-lived goroutines of many exited parents never
// come above a group of thousands. An idle pool started by
// one goroutine that is still alive is flagged only when it is both huge
// (LeakLargeCount) and idle for LeakMinWait minutes.
//
// Proof ranks above suspicion: goroutines the runtime marked leaked are
// listed as Leaked and taken out of the suspects, which weigh only the
// members not proven. A group whose blocked members were all proven
// leaked is no suspect at all; the rest of a partly proven group is
// scored on its own and says how many of its place were proven.

// LeakedRow is a set of goroutines the runtime marked leaked, blocked at
// one frame and started by one go statement.
type LeakedRow struct {
	Count   int64     `json:"count"`
	State   string    `json:"state,omitempty"`
	WaitMax int       `json:"wait_max"`
	Frame   *FrameRef `json:"frame,omitempty"`
	// CreatedBy is the go statement that started them.
	CreatedBy *FrameRef `json:"created_by,omitempty"`
	IDs       []int64   `json:"ids,omitempty"`
}

// LeakSuspect is a group the leak heuristic flags.
type LeakSuspect struct {
	GroupRow
	// Blocked counts the members parked on a channel or select that the
	// runtime did not prove leaked.
	Blocked int64 `json:"blocked"`
	// Proven counts the members the runtime proved leaked; they are
	// listed under Leaked, not counted in Blocked.
	Proven int64 `json:"proven,omitempty"`
	// Parents counts the distinct goroutines that started the members;
	// ExitedParents how many of them are not in the dump (-1: unknown).
	Parents       int `json:"parents"`
	ExitedParents int `json:"exited_parents"`
	// Growth is the members parked on channels in each earlier dump of
	// the same process and in this one, oldest first, when
	// Options.History holds earlier dumps; nil otherwise.
	Growth []int64 `json:"growth,omitempty"`
	// Score is the heuristic's score (2 or more); Reasons say what scored,
	// the strongest evidence first.
	Score   int      `json:"score"`
	Reasons []string `json:"reasons"`
	grew    bool
}

// leakedIndex counts runtime-marked leaked routines by where they block.
type leakedIndex struct {
	byKey map[leakedKey]*LeakedRow
	order []*LeakedRow
	total int64
}

type leakedKey struct {
	frame, creator *stack.Frame
	state          string
}

func newLeakedIndex() leakedIndex { return leakedIndex{byKey: make(map[leakedKey]*LeakedRow)} }

func (x *leakedIndex) add(r *stack.Routine) {
	top := whereFrame(r.Stack)
	k := leakedKey{top, r.CreatedBy, r.State}
	row := x.byKey[k]
	if row == nil {
		row = &LeakedRow{State: r.State, Frame: frameRef(top), CreatedBy: frameRef(r.CreatedBy)}
		x.byKey[k] = row
		x.order = append(x.order, row)
	}
	n := weight(r)
	row.Count += n
	x.total += n
	row.WaitMax = max(row.WaitMax, r.WaitMinutes)
	if r.ID != 0 {
		row.IDs = keepSmallest(row.IDs, r.ID, maxRowIDs)
	}
}

// rows returns the n largest rows and the number of leaked routines.
func (x *leakedIndex) rows(n int) ([]LeakedRow, int64) {
	sorted := slices.Clone(x.order)
	slices.SortStableFunc(sorted, func(a, b *LeakedRow) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), compareRefs(a.Frame, b.Frame), strings.Compare(a.State, b.State))
	})
	out := make([]LeakedRow, 0, min(n, len(sorted)))
	for _, r := range sorted[:min(n, len(sorted))] {
		out = append(out, *r)
	}
	return out, x.total
}

// likelyLeaks scores every group (see the comment at the top of this file)
// and returns the flagged ones, most evidence first. earlier gives a
// group's parked counts in the earlier dumps of the process (nil: none).
func likelyLeaks(groups []*stack.Group, ids *idIndex, opts Options, earlier func(key string) []int64) []LeakSuspect {
	out := []LeakSuspect{}
	for _, g := range groups {
		blocked := chanBlocked(g)
		proven := min(g.Leaked, blocked)
		blocked -= proven
		if blocked < int64(opts.LeakMinCount) {
			continue
		}
		s := LeakSuspect{GroupRow: groupRow(g), Blocked: blocked, Proven: proven, Parents: len(g.ParentIDs), ExitedParents: exitedParents(g, ids)}
		if earlier != nil {
			if e := earlier(g.Key); e != nil {
				s.Growth = append(slices.Clone(e), chanBlocked(g))
			}
		}
		s.score(g, opts)
		if proven > 0 {
			s.Reasons = append(s.Reasons, fmt.Sprintf("%d more of them were proven leaked (listed above)", proven))
		}
		if s.Score >= 2 {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b LeakSuspect) int {
		return cmp.Or(cmpBool(b.grew, a.grew), cmp.Compare(b.Blocked, a.Blocked), cmp.Compare(b.WaitMax, a.WaitMax), cmp.Compare(b.Score, a.Score))
	})
	return out[:min(len(out), opts.Top)]
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func (s *LeakSuspect) score(g *stack.Group, opts Options) {
	add := func(points int, format string, args ...any) {
		s.Score += points
		s.Reasons = append(s.Reasons, fmt.Sprintf(format, args...))
	}
	// The strongest evidence first: growth across dumps, then size.
	if points, reason := growth(s.Growth); reason != "" {
		s.grew = points > 0
		add(points, "%s", reason)
	}
	large := s.Blocked >= opts.LeakLargeCount
	if large {
		noCreators := s.Parents == 0 && (g.Sample == nil || g.Sample.CreatedBy == nil)
		if noCreators && g.WaitMax == 0 {
			add(2, "%s at one place, and the input has no creators or wait times to tell it from a pool", words.Count(s.Blocked, "goroutine"))
		} else {
			add(1, "%s at one place", words.Count(s.Blocked, "goroutine"))
		}
	}
	if s.Parents >= opts.LeakMinParents {
		add(2, "started by %s (a pool is started by one)", words.Count(s.Parents, "different goroutine"))
	}
	if s.ExitedParents > 0 && 2*s.ExitedParents > s.Parents {
		if s.Parents == 1 {
			add(1, "the goroutine that started them has exited")
		} else {
			add(1, "%d of those %s have exited", s.ExitedParents, words.Count(s.Parents, "goroutine"))
		}
	}
	if g.WaitMax >= opts.LeakMinWait {
		add(1, "blocked for up to %s", words.Count(g.WaitMax, "minute"))
	}
}

// exitedParents counts g's parents that are not in the dump; -1 when that
// cannot be known for any of them.
func exitedParents(g *stack.Group, ids *idIndex) int {
	n, known := 0, false
	for _, p := range g.ParentIDs {
		switch _, where := ids.find(p); where {
		case absent:
			n++
			known = true
		case present:
			known = true
		}
	}
	if !known {
		return -1
	}
	return n
}

// chanBlocked counts g's members parked on a channel operation or select.
func chanBlocked(g *stack.Group) int64 {
	if len(g.States) == 0 {
		if g.Sample != nil && chanWaitFrames(g.Sample.Frames()) {
			return g.Count
		}
		return 0
	}
	var n int64
	for s, c := range g.States {
		if isChanWait(s) {
			n += c
		}
	}
	return n
}

// isChanWait reports whether a wait reason is a channel operation or a
// select that a goroutine can stay in forever.
func isChanWait(state string) bool {
	switch state {
	case "chan receive", "chan send", "select",
		"chan receive (nil chan)", "chan send (nil chan)", "select (no cases)":
		return true
	}
	return false
}

// chanWaitFrames reports whether the innermost runtime frames are those of
// a blocked channel operation or select.
func chanWaitFrames(frames []*stack.Frame) bool {
	for _, f := range frames {
		if !f.IsRuntime() {
			return false
		}
		switch f.Func {
		case "runtime.chanrecv", "runtime.chanrecv1", "runtime.chanrecv2",
			"runtime.chansend", "runtime.chansend1", "runtime.selectgo", "runtime.block":
			return true
		}
	}
	return false
}

// weight is how many routines r stands for.
func weight(r *stack.Routine) int64 { return max(r.Count, 1) }

// keepSmallest adds id to the sorted ids, keeping the n smallest.
func keepSmallest(ids []int64, id int64, n int) []int64 {
	i, found := slices.BinarySearch(ids, id)
	if found || i >= n {
		return ids
	}
	ids = slices.Insert(ids, i, id)
	return ids[:min(len(ids), n)]
}

func compareRefs(a, b *FrameRef) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Or(strings.Compare(a.Func, b.Func), strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
}
