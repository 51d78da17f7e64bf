package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// Leaks are judged three ways.
//
// Proven (FindingProvenLeak): goroutines the runtime itself marked
// `(leaked)`. A Go 1.26 program built with GOEXPERIMENT=goroutineleakprofile
// (GA in Go 1.27) runs, when its goroutineleak profile is taken, a GC
// cycle that finds goroutines blocked on channels, locks or select that
// no runnable goroutine can reach; they can never wake up. Certain.
//
// Likely leaks and leak suspects: groups of at least LeakMinCount members
// parked on a channel operation or a select (their "(nil chan)" and "(no
// cases)" forms too; for inputs without states, stacks whose innermost
// runtime frames are chanrecv, chansend, selectgo or block). A worker
// pool, idle streams and a leak look alike in one dump, so a group is
// judged by evidence that it is not a pool:
//
//	strong  grew across three dumps or more of the same process
//	        (Options.History) and never fell: a leak only grows;
//	strong  started by LeakMinParents distinct goroutines or more, most of
//	        them gone: started per request by goroutines that could have
//	        received, sent or closed, and have exited;
//	strong  LeakMinCount of them each wait on a channel of their own that
//	        no other goroutine in the dump carries (a result channel whose
//	        receiver gave up), from the arguments (objects.go);
//	strong  LeakLargeCount of them wait on one channel no other goroutine
//	        carries;
//	weak    grew between two dumps;
//	weak    LeakLargeCount members or more (size is all there is to go on
//	        for inputs without creators or wait times: debug=1, pprof);
//	weak    blocked LeakMinWait minutes or more, on a channel (not a
//	        select, whose cases — a timer, a context — the traceback does
//	        not show);
//	against fell between two dumps, or grew while fewer than nine in ten
//	        of the members the first dump lists (by id) stayed: churn,
//	        what leaked would still be there.
//
// One strong piece of evidence, and no fall, makes a likely leak; weak
// evidence alone a leak suspect when it is growth, or both size and a long
// wait on a channel, or size on an input that has nothing else; anything
// else is not reported: an idle pool of one live parent, thousands of
// idle streams of live connections and a huge pool that woke recently
// are healthy shapes. Score adds 2 per strong piece, 1 per weak one and
// -2 for a fall; suspects are ranked by evidence, not by score: those
// that grew first, then the largest, then the longest waiting.
//
// Proof ranks above suspicion: goroutines the runtime marked leaked are
// listed as Leaked and taken out of the suspects, which weigh only the
// members not proven. A group whose blocked members were all proven
// leaked is no suspect at all; the rest of a partly proven group is
// judged on its own and says how many of its place were proven.

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
	// Kind is FindingLikelyLeak or FindingLeakSuspect (leaks.go says which
	// evidence makes which), Confidence how sure it is.
	Kind       FindingKind `json:"kind"`
	Confidence Confidence  `json:"confidence"`
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
	// Score adds the evidence: 2 per strong piece, 1 per weak one, -2 for
	// a fall across dumps. Reasons say what was found, the strongest
	// evidence first; Evidence says the same with its kinds.
	Score    int        `json:"score"`
	Reasons  []string   `json:"reasons"`
	Evidence []Evidence `json:"-"`
	grew     bool
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

// leakContext is what judging a group needs beyond the group.
type leakContext struct {
	ids  *idIndex
	objs *objectIndex
	// earlier and total give a group's members parked on channels, and
	// all its members, in the earlier dumps of the process (nil: none);
	// kept how many ids the first of them listed for the group and how
	// many of those stayed in it since (listed 0: unknown).
	earlier, total func(key string) []int64
	kept           func(g *stack.Group) (listed, kept int)
	// noInfo is set for inputs without creators or wait times.
	noInfo bool
}

// likelyLeaks judges every group (see the comment at the top of this
// file) and returns the flagged ones, most evidence first.
func likelyLeaks(groups []*stack.Group, lc leakContext, opts Options) []LeakSuspect {
	out := []LeakSuspect{}
	for _, g := range groups {
		blocked := chanBlocked(g)
		proven := min(g.Leaked, blocked)
		blocked -= proven
		if blocked < int64(opts.LeakMinCount) {
			continue
		}
		s := LeakSuspect{GroupRow: groupRow(g), Blocked: blocked, Proven: proven, Parents: len(g.ParentIDs), ExitedParents: exitedParents(g, lc.ids)}
		var total []int64
		if lc.earlier != nil {
			if e := lc.earlier(g.Key); e != nil {
				s.Growth = append(slices.Clone(e), chanBlocked(g))
			}
			if e := lc.total(g.Key); e != nil {
				total = append(slices.Clone(e), g.Count)
			}
		}
		var listed, kept int
		if s.Growth != nil && lc.kept != nil {
			listed, kept = lc.kept(g)
		}
		if !s.judge(g, lc, opts, total, listed, kept) {
			continue
		}
		if proven > 0 {
			s.Reasons = append(s.Reasons, fmt.Sprintf("%d more of them were proven leaked (listed above)", proven))
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b LeakSuspect) int {
		return cmp.Or(cmpBool(b.grew, a.grew), cmp.Compare(findingOrder(a.Kind), findingOrder(b.Kind)),
			cmp.Compare(b.Blocked, a.Blocked), cmp.Compare(b.WaitMax, a.WaitMax), cmp.Compare(b.Score, a.Score))
	})
	return out
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

// judge weighs the evidence of a group and says whether it is flagged,
// setting its kind, confidence, score and reasons. Listed and kept say
// how many ids the first dump of its Growth listed and how many of them
// stayed in the group since (listed 0: unknown).
func (s *LeakSuspect) judge(g *stack.Group, lc leakContext, opts Options, total []int64, listed, kept int) bool {
	strong, weak, fell := 0, 0, false
	add := func(points int, kind, format string, args ...any) {
		s.Score += points
		text := fmt.Sprintf(format, args...)
		s.Reasons = append(s.Reasons, text)
		s.Evidence = append(s.Evidence, Evidence{Kind: kind, Text: text})
		switch {
		case points >= 2:
			strong++
		case points > 0:
			weak++
		}
	}
	// The strongest evidence first: growth across dumps, then the rest.
	if len(s.Growth) >= 2 {
		// Growth is of the group: members parked on channels in a group
		// of constant size (a busy pool) come and go.
		totalRose, _ := seriesTrend(total)
		switch rose, fall := seriesTrend(s.Growth); {
		case fall:
			fell = true
			add(-2, EvidenceChurn, "fell between dumps (%s): a leak only grows", seriesText(s.Growth))
		case rose && totalRose && listed > 0 && !stayed(listed, kept):
			// Members that come and go: a busy pool's idle workers.
			fell = true
			add(-2, EvidenceChurn, "grew (%s), but only %d of the %s the first dump lists stayed in every dump since: what leaked would still be there",
				seriesText(s.Growth), kept, words.Count(listed, "goroutine"))
		case rose && totalRose && len(s.Growth) >= 3:
			s.grew = true
			add(2, EvidenceGrowth, "grew across %s (%s)", words.Count(len(s.Growth), "dump"), seriesText(s.Growth))
			s.Evidence[len(s.Evidence)-1].Series = s.Growth
		case rose && totalRose:
			s.grew = true
			add(1, EvidenceGrowth, "grew between two dumps (%s)", seriesText(s.Growth))
			s.Evidence[len(s.Evidence)-1].Series = s.Growth
		}
	}
	if s.Parents >= opts.LeakMinParents && s.ExitedParents > 0 && 2*s.ExitedParents > s.Parents {
		add(2, EvidenceParents, "started by %s, %d of which have exited (a pool is started once; these were started per request by goroutines now gone)",
			words.Count(s.Parents, "different goroutine"), s.ExitedParents)
	}
	if lc.objs != nil && g.Sample != nil {
		place := dedupe.PlaceOf(g.Sample.Stack).Frame
		if n := lc.objs.alone(place); n >= int64(opts.LeakMinCount) {
			add(2, EvidenceNoSender, "%d of them each wait on a channel of their own that no other goroutine in the dump carries", n)
		} else if dead := lc.objs.deadAt(place, opts.LeakLargeCount); dead != 0 {
			add(2, EvidenceNoSender, "%d of them wait on one channel (%s) that no other goroutine in the dump carries", lc.objs.waits[dead].n, addrText(dead))
		}
	}
	large := s.Blocked >= opts.LeakLargeCount
	if large {
		if lc.noInfo {
			add(1, EvidenceSize, "%s at one place, and the input has no creators or wait times to tell it from a pool", words.Count(s.Blocked, "goroutine"))
		} else {
			add(1, EvidenceSize, "%s at one place", words.Count(s.Blocked, "goroutine"))
		}
	}
	onChannel := !isSelectOnly(g)
	if g.WaitMax >= opts.LeakMinWait && onChannel {
		add(1, EvidenceWaitAge, "blocked for up to %s on a channel", words.Count(g.WaitMax, "minute"))
	}
	switch {
	case fell:
		return false
	case strong > 0:
		s.Kind, s.Confidence = FindingLikelyLeak, Likely
	case s.grew, large && lc.noInfo, large && weak >= 2:
		s.Kind, s.Confidence = FindingLeakSuspect, Possible
	default:
		return false
	}
	return true
}

// isSelectOnly reports whether every member of g parked on a channel is
// in a select.
func isSelectOnly(g *stack.Group) bool {
	if len(g.States) == 0 {
		return g.Sample != nil && goWaitClassOfFrames(g.Sample.Frames()) == waitIdle
	}
	sel := false
	for st, n := range g.States {
		if n == 0 || !isChanWait(st) {
			continue
		}
		if !strings.HasPrefix(st, "select") {
			return false
		}
		sel = true
	}
	return sel
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
