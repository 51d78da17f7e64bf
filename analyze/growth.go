package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// Growth is judged on a group's member counts across the dumps of one
// process, oldest first (analyze with Options.History, and timeline). A
// group grows when its count rose across three dumps or more, never fell,
// and rose by at least max(10, a quarter of its first count), and, for
// inputs with ids, when nine in ten of the members the first dump lists
// (a sample: the memberIDs smallest ids) are in the group in every dump
// since: what leaked stays, while a busy pool's idle workers come and go.
//
// That is enough for routines waiting on the program's own memory: a
// channel, a select (whose cases the traceback does not show), a lock, a
// WaitGroup, a condition. What no one serves only piles up.
//
// Routines waiting on the outside world — the network (IO wait: a
// server's connections and streams), a timer (sleep; a JVM thread in
// TIMED_WAITING) or a system call — come and go with the load: a server
// given more clients holds more connections, and its connections move
// between reading the next request and serving one. Three quick dumps of a
// healthy server under rising load show them grow as a leak does, and
// keep their goroutines. Their growth is a finding only with more
// evidence that they stay:
//
//	span     the dumps span growthMinSpan (a minute) or more, where their
//	         capture times are known: load rises and falls in seconds;
//	process  the process grew with them, by half their rise at least:
//	         members that moved in from other stacks of the same
//	         goroutines (a connection between two requests) are no growth;
//	age      their longest wait (the runtime's "N minutes") is at least
//	         the first dump's plus the span's whole minutes, and a minute
//	         or more: the oldest of them never woke between the first dump
//	         and the last (inputs with wait minutes: Go tracebacks).
//
// Inputs without wait minutes (debug=1, pprof, JVM dumps) cannot show the
// age: a longer trend stands for it, growthLongDumps dumps or more
// spanning growthLongSpan where the times are known, and the finding is
// only possible.
const (
	growthMinDumps  = 3
	growthMinSpan   = time.Minute
	growthLongDumps = 6
	growthLongSpan  = 5 * time.Minute
	// memberIDs is how many ids of a group (its first dump's smallest,
	// the oldest goroutines) are followed across dumps: a sample enough to
	// tell members that stay from members that come and go.
	memberIDs = 100
)

// outsideWait says what a Go goroutine in state waits for when it waits on
// the outside world, as the timeline's idle rows say it (IdleNetwork,
// IdleTimer, IdleNative): the network (IO wait, or for inputs without states
// the poller's frame), a timer (sleep, or time.Sleep's frame) or a system
// call; "" when it waits on the program's own memory, or runs.
func outsideWait(state string, frames []*stack.Frame) string {
	switch state {
	case "IO wait":
		return IdleNetwork
	case "sleep":
		return IdleTimer
	case "syscall":
		return IdleNative
	case "":
		for _, f := range frames {
			switch f.Func {
			case "runtime.netpollblock", "internal/poll.runtime_pollWait":
				return IdleNetwork
			case "runtime.timeSleep", "time.Sleep":
				return IdleTimer
			}
			if !f.IsRuntime() {
				return ""
			}
		}
	}
	return ""
}

// groupOutsideWait is outsideWait for a group by its most common state: a
// JVM thread waits on a timer in TIMED_WAITING.
func groupOutsideWait(g *stack.Group) string {
	state := dedupe.MainState(g)
	if g.Sample != nil && g.Sample.Thread != nil {
		if strings.HasPrefix(state, "TIMED_WAITING") {
			return IdleTimer
		}
		return ""
	}
	var frames []*stack.Frame
	if g.Sample != nil {
		frames = g.Sample.Frames()
	}
	return outsideWait(state, frames)
}

// waitsText names what a kind of outside wait waits for.
func waitsText(kind, state string) string {
	what := map[string]string{IdleNetwork: "the network", IdleTimer: "a timer", IdleNative: "a system call"}[kind]
	if state != "" {
		what += " (" + state + ")"
	}
	return what
}

// growthCase is one group followed across the dumps of one process, its
// series aligned with the process's (growthProcess), oldest first.
type growthCase struct {
	key          string
	state        string
	frame, wait  *FrameRef
	ids          []int64
	counts       []int64 // members per dump
	waits        []int64 // longest wait per dump, in minutes
	outside      string  // outsideWait of the group in the last dump
	listed, kept int     // ids listed in the first dump, and how many stayed since; listed < 0: no ids
}

// growthProcess is what the dumps of the process say beside the groups.
type growthProcess struct {
	totals []int64     // routines per dump
	at     []time.Time // capture times, zero where unknown
	// waits and ids are set when every dump of the series carried wait
	// minutes, and routine ids.
	waits, ids bool
	unit, noun string // "dump" or "snapshot"; "goroutines" or "threads"
}

// span is the time from the first dump of the last n to the last, and
// whether both times are known.
func (p growthProcess) span(n int) (time.Duration, bool) {
	if n < 2 || len(p.at) < n {
		return 0, false
	}
	first, last := p.at[len(p.at)-n], p.at[len(p.at)-1]
	if first.IsZero() || last.IsZero() || !last.After(first) {
		return 0, false
	}
	return last.Sub(first), true
}

// grows reports whether counts grew by the rule every group is held to.
func grows(counts []int64) bool {
	if len(counts) < growthMinDumps {
		return false
	}
	rose, fell := seriesTrend(counts)
	first, last := counts[0], counts[len(counts)-1]
	return rose && !fell && last-first >= max(10, first/4)
}

// growthFindings are the growth findings of the cases, by the rule at the
// top of this file; the groups of similar size whose counts stayed flat
// are each one's peers.
func growthFindings(cases []growthCase, p growthProcess) []Finding {
	var out []Finding
	for _, c := range cases {
		s := c.counts
		if !grows(s) || isOnCPU(c.state) {
			continue
		}
		first, last := s[0], s[len(s)-1]
		text := fmt.Sprintf("grew across %s", words.Count(len(s), p.unit))
		if d, ok := p.span(len(s)); ok {
			text += " over " + durationText(d)
		}
		ev := []Evidence{{Kind: EvidenceGrowth, Series: slices.Clone(s),
			Text: fmt.Sprintf("%s and never fell (%s)", text, seriesText(s))}}
		if p.ids && c.listed > 0 {
			// The members of the first dump stayed: a leak keeps what it
			// took, a busy pool's idle workers come and go.
			if !stayed(c.listed, c.kept) {
				continue
			}
			ev = append(ev, Evidence{Kind: EvidenceNoProgress, Text: keptText(c.listed, c.kept, p)})
		}
		conf, prove := Likely, "a later snapshot: growth that goes on is a leak, one that levels off is load"
		if c.outside != "" {
			more, ok := outsideEvidence(c, p)
			if !ok {
				continue
			}
			ev = append(ev, more...)
			prove = "a later snapshot: waiters that go on piling up, their waits growing with the clock, are a leak (connections, timers or goroutines no one ends); a count that levels off or falls is load"
			if !p.waits {
				conf = Possible
				prove = "a Go traceback (debug=2) a minute or more later: waits that grow with the clock show they never wake; " + prove
			}
		}
		if peers := growthPeers(c, cases); len(peers) > 0 {
			ev = append(ev, Evidence{Kind: EvidencePeers, Text: fmt.Sprintf("while %s of its size stayed flat (%s)", words.Count(len(peers), "group"), strings.Join(peers[:min(len(peers), 3)], "; "))})
		}
		out = append(out, Finding{Kind: FindingGrowth, Confidence: conf,
			Claim:      fmt.Sprintf("%s at %s grew from %d to %d across %s", p.noun, placeText(c.frame), first, last, words.Count(len(s), p.unit)),
			Subject:    Subject{Count: last, State: c.state, Frame: c.frame, Wait: c.wait, Group: c.key, IDs: c.ids},
			Evidence:   ev,
			WouldProve: prove})
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(b.Subject.Count, a.Subject.Count) })
	return out
}

// outsideEvidence weighs the growth of routines waiting on the outside
// world (the rule at the top of this file): the evidence that they stay,
// and whether it is enough.
func outsideEvidence(c growthCase, p growthProcess) ([]Evidence, bool) {
	s := c.counts
	n := len(s)
	rise := s[n-1] - s[0]
	span, timed := p.span(n)
	var ev []Evidence
	ev = append(ev, Evidence{Kind: EvidenceWaitAge, Text: "they wait for " + waitsText(c.outside, c.state) +
		": a healthy server's connections and timers grow and shrink with its load, so their growth counts only with evidence that they stay"})

	// The process grew with them: not goroutines that moved in.
	if len(p.totals) >= n {
		t := p.totals[len(p.totals)-n:]
		if 2*(t[n-1]-t[0]) < rise {
			return nil, false
		}
		ev = append(ev, Evidence{Kind: EvidenceSize, Text: fmt.Sprintf("the process grew with them (%s %s)", seriesText(t), p.noun)})
	}
	if !p.waits || len(c.waits) < n {
		// No wait minutes: a longer trend stands for the age.
		if n < growthLongDumps || timed && span < growthLongSpan {
			return nil, false
		}
		ev = append(ev, Evidence{Kind: EvidenceGrowth, Text: fmt.Sprintf("a trend of %s: the input has no wait times to show whether they ever wake", words.Count(n, p.unit))})
		return ev, true
	}
	// Their waits rose with the clock: the oldest never woke.
	minutes := int64(1)
	if timed {
		if span < growthMinSpan {
			return nil, false
		}
		minutes = int64(span / time.Minute)
	}
	wf, wl := c.waits[len(c.waits)-n], c.waits[len(c.waits)-1]
	if wl < wf+minutes {
		return nil, false
	}
	text := fmt.Sprintf("their longest wait rose from %d to %s", wf, words.Count(int(wl), "minute"))
	if timed {
		text += fmt.Sprintf(" over the %s the %ss span", durationText(span), p.unit)
	}
	text += fmt.Sprintf(": the oldest never woke between the first %s and the last", p.unit)
	ev = append(ev, Evidence{Kind: EvidenceWaitAge, Text: text})
	return ev, true
}

// stayed reports whether nine in ten of the listed members stayed.
func stayed(listed, kept int) bool { return 10*kept >= 9*listed }

// keptText says how many members of the first dump stayed.
func keptText(listed, kept int, p growthProcess) string {
	return fmt.Sprintf("%d of the %s the first %s lists are still there, in every %s since",
		kept, words.Count(listed, strings.TrimSuffix(p.noun, "s")), p.unit, p.unit)
}

// growthPeers names the groups of c's size whose counts stayed flat.
func growthPeers(c growthCase, cases []growthCase) []string {
	last := c.counts[len(c.counts)-1]
	var peers []string
	for _, y := range cases {
		ys := y.counts
		if y.key == c.key || len(ys) != len(c.counts) || y.frame == nil {
			continue
		}
		if !flat(ys) || 2*ys[len(ys)-1] < last || ys[len(ys)-1] > 2*last {
			continue
		}
		peers = append(peers, shortFunc(y.frame.Func)+" "+seriesText(ys))
	}
	slices.Sort(peers)
	return peers
}

// flat reports whether counts stayed within a tenth of their largest.
func flat(counts []int64) bool {
	lo, hi := slices.Min(counts), slices.Max(counts)
	return hi > 0 && hi-lo <= hi/10
}

// members follows a sample of a group's members across dumps: the
// smallest memberIDs ids of its first dump, and, in place of those that
// left, the smallest new ones; for each, the dump since which it has been
// in the group in every dump.
type members struct {
	since map[int64]int
	from  int // the first dump followed
}

func newMembers(from int) *members { return &members{since: make(map[int64]int), from: from} }

// update records the group's ids (sorted: all it lists) in dump seq.
func (m *members) update(ids []int64, seq int) {
	for id := range m.since {
		if _, ok := slices.BinarySearch(ids, id); !ok {
			delete(m.since, id)
		}
	}
	for _, id := range ids {
		if len(m.since) >= memberIDs {
			break
		}
		if _, ok := m.since[id]; !ok {
			m.since[id] = seq
		}
	}
}

// keptSince counts the ids in the group since dump first or earlier.
func (m *members) keptSince(first int) int {
	n := 0
	for _, s := range m.since {
		if s <= first {
			n++
		}
	}
	return n
}

// keptIn counts the ids (sorted) of the group's next dump that have been
// in it since dump first or earlier.
func (m *members) keptIn(ids []int64, first int) int {
	n := 0
	for id, s := range m.since {
		if _, ok := slices.BinarySearch(ids, id); ok && s <= first {
			n++
		}
	}
	return n
}
