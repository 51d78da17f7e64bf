package leakcheck

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// Error is what Find returns when goroutines are left over: the leftovers
// in counted groups of identical stacks (and creators), goroutines the
// runtime proved leaked first. Its text has one headline per group with
// the count, states and creator, the group's top frames and its ids, so
// that ten thousand leaked goroutines of three kinds read as three groups.
type Error struct {
	// Proven are the groups of goroutines the Go 1.27+ leak profile proved
	// leaked: blocked on something no runnable goroutine can reach.
	Proven []*stack.Group
	// Other are the groups of the remaining leftovers: running, sleeping,
	// or blocked on something still reachable, after every retry.
	Other []*stack.Group
	// ProvenCount and OtherCount count the goroutines in each.
	ProvenCount, OtherCount int64
	// Retries is how many times the check looked again before failing.
	Retries int
	// LeakProfile says whether the running Go has the leak profile, so
	// that leftovers could be proven leaked.
	LeakProfile bool
	// FullStacks makes Error show every frame of each group (the
	// FullStacks option), not the top five.
	FullStacks bool
	// goleak, when not empty, is the report in goleak v1.3.0's form
	// (the GoleakReport option), after the first line.
	goleak string
}

// Report layout limits.
const (
	reportFrames = 5  // frames shown per group, from the top one (unless FullStacks)
	reportIDs    = 12 // ids or id ranges shown per group
)

// report parses the leftover blocks of s and groups them.
func (c *checker) report(s *snapshot, left []goroutineText, retries int, haveProfile bool) *Error {
	c.scratch = c.scratch[:0]
	for _, g := range left {
		c.scratch = append(c.scratch, s.block(g)...)
		c.scratch = append(c.scratch, '\n')
	}
	opts := dedupe.Options{SplitByCreator: true}
	proven, other := dedupe.NewGrouper(opts), dedupe.NewGrouper(opts)
	p := stack.Pipeline{
		Source: gotext.NewRuntimeReaderBytes(c.scratch, gotext.ReadOptions{Table: c.tbl}),
		Encoder: stack.RoutineFunc(func(r *stack.Routine) {
			if r.Leaked {
				proven.Add(r)
			} else {
				other.Add(r)
			}
		}),
	}
	_, _ = p.Next(context.Background()) // what could not be read is left out
	e := &Error{
		Proven: proven.Groups(), Other: other.Groups(),
		ProvenCount: proven.Total(), OtherCount: other.Total(),
		Retries: retries, LeakProfile: haveProfile, FullStacks: c.o.fullStacks,
	}
	if c.o.goleakReport {
		e.goleak = s.goleakReport(left)
	}
	return e
}

// errorHead is the first line of every report, goleak's words (CI log
// scrapers and tests match it).
const errorHead = "found unexpected goroutines:\n"

// Error describes the leftovers: goleak's first line, then a summary and
// the groups:
//
//	found unexpected goroutines:
//	9000 goroutines in 2 groups, 6000 of them proven leaked (…) at the first look:
//	6000 proven leaked [chan send] created by example.com/m.TestLeak in goroutine 7 at /src/m/leak_test.go:20
//	    example.com/m.sendForever  /src/m/leak_test.go:12
//	    example.com/m.helper       /src/m/leak_test.go:16
//	    ids 17-6016
//	3000 [sleep] created by …
func (e *Error) Error() string {
	if e.goleak != "" {
		return errorHead + e.goleak
	}
	total := e.ProvenCount + e.OtherCount
	b := make([]byte, 0, 1024)
	b = append(b, errorHead...)
	b = appendCount(b, total, "goroutine")
	b = append(b, " in "...)
	b = appendCount(b, int64(len(e.Proven)+len(e.Other)), "group")
	switch {
	case e.ProvenCount > 0:
		b = append(b, ", "...)
		b = strconv.AppendInt(b, e.ProvenCount, 10)
		b = append(b, " of them proven leaked (blocked on something nothing reachable can wake) "...)
		if e.Retries == 0 {
			b = append(b, "at the first look"...)
		} else {
			b = append(b, "after "...)
			b = appendCount(b, int64(e.Retries), "retry")
		}
	case e.LeakProfile:
		b = append(b, ", none proven leaked, still there after "...)
		b = appendCount(b, int64(e.Retries), "retry")
	default:
		b = append(b, ", still there after "...)
		b = appendCount(b, int64(e.Retries), "retry")
	}
	b = append(b, ':')
	frames := reportFrames
	if e.FullStacks {
		frames = -1
	}
	for _, g := range e.Proven {
		b = appendGroup(b, g, true, frames)
	}
	for _, g := range e.Other {
		b = appendGroup(b, g, false, frames)
	}
	return string(b)
}

func appendCount(b []byte, n int64, noun string) []byte {
	b = strconv.AppendInt(b, n, 10)
	b = append(b, ' ')
	if n == 1 {
		return append(b, noun...)
	}
	if noun == "retry" {
		return append(b, "retries"...)
	}
	b = append(b, noun...)
	return append(b, 's')
}

// appendGroup appends a group's headline, top frames (at most maxFrames;
// all when maxFrames < 0) and ids.
func appendGroup(b []byte, g *stack.Group, proven bool, maxFrames int) []byte {
	b = append(b, '\n')
	b = strconv.AppendInt(b, g.Count, 10)
	if proven {
		b = append(b, " proven leaked"...)
	}
	b = append(b, " ["...)
	b = appendStates(b, g)
	b = append(b, ']')
	s := g.Sample
	if s == nil {
		return b
	}
	if s.CreatedBy != nil {
		b = append(b, " created by "...)
		b = append(b, s.CreatedBy.Func...)
		switch len(g.ParentIDs) {
		case 0:
		case 1:
			b = append(b, " in goroutine "...)
			b = strconv.AppendInt(b, g.ParentIDs[0], 10)
		default:
			b = append(b, " in goroutines "...)
			b = words.AppendIDList(b, g.ParentIDs, 0, 5)
		}
		if s.CreatedBy.File != "" {
			b = append(b, " at "...)
			b = appendLocation(b, s.CreatedBy)
		}
	}
	frames := s.Frames()
	first := 0
	for first < len(frames) && frames[first].IsRuntime() {
		first++
	}
	if first == len(frames) {
		first = 0
	}
	if maxFrames < 0 {
		first, maxFrames = 0, len(frames) // the whole stack, runtime frames too
	}
	// The top frames, then, when more are cut, their count and the bottom
	// frame: the function the go statement started, which names the
	// goroutine when its top frames are a library's (readLoop below five
	// frames of internal/poll and net).
	shown, last := frames[first:], (*stack.Frame)(nil)
	if len(shown) > maxFrames+1 {
		shown, last = shown[:maxFrames], frames[len(frames)-1]
	}
	width := 0
	for _, f := range shown {
		width = max(width, len(f.Func))
	}
	if last != nil {
		width = max(width, len(last.Func))
	}
	for _, f := range shown {
		b = appendFrame(b, f, width)
	}
	if last != nil {
		b = append(b, "\n    … "...)
		b = appendCount(b, int64(len(frames)-first-len(shown)-1), "more frame")
		b = appendFrame(b, last, width)
	}
	b = append(b, "\n    ids "...)
	return words.AppendIDList(b, g.IDs, g.MoreIDs, reportIDs)
}

// appendFrame appends one frame's line, its location at column width+6.
func appendFrame(b []byte, f *stack.Frame, width int) []byte {
	b = append(b, "\n    "...)
	b = append(b, f.Func...)
	if f.File != "" {
		for i := len(f.Func); i < width+2; i++ {
			b = append(b, ' ')
		}
		b = appendLocation(b, f)
	}
	return b
}

func appendLocation(b []byte, f *stack.Frame) []byte {
	b = append(b, f.File...)
	b = append(b, ':')
	return strconv.AppendInt(b, int64(f.Line), 10)
}

// appendStates appends the group's states, the most common first, with
// counts when there are several: "chan receive: 9, select: 1".
func appendStates(b []byte, g *stack.Group) []byte {
	type sc struct {
		state string
		n     int64
	}
	var states []sc
	for s, n := range g.States {
		states = append(states, sc{s, n})
	}
	slices.SortFunc(states, func(x, y sc) int {
		return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.state, y.state))
	})
	for i, s := range states {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s.state...)
		if len(states) > 1 {
			b = append(b, ": "...)
			b = strconv.AppendInt(b, s.n, 10)
		}
	}
	if g.WaitMax > 0 {
		b = append(b, ", "...)
		if g.WaitMin != g.WaitMax {
			b = strconv.AppendInt(b, int64(g.WaitMin), 10)
			b = append(b, '~')
		}
		b = strconv.AppendInt(b, int64(g.WaitMax), 10)
		b = append(b, " minutes"...)
	}
	return b
}
