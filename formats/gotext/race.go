package gotext

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// raceAccess is a parsed access or creation line of a race report:
//
//	Write at 0x000000620518 by goroutine 7:
//	Previous read at 0x00c000014100 by main goroutine:
//	Read by goroutine 5:                      (old TSan, no address)
//	Previous atomic write at 0x… by goroutine 3 (mutexes: write M1):
//	Write of size 8 at 0x… by goroutine 7:    (ThreadSanitizer's size)
//	Goroutine 7 (running) created at:
type raceAccess struct {
	role  []byte // "Write", "Previous read", "Atomic write", "created"
	addr  uint64
	size  int // ThreadSanitizer's "of size N", 0 when absent
	id    int64
	main  bool
	state []byte // "running", "finished" for created lines
}

// parseRaceAccess parses an access or creation line; it reports false for
// any other line of a report ("Location is …", "Mutex M1 …").
func parseRaceAccess(line []byte) (raceAccess, bool) {
	var a raceAccess
	n := len(line)
	if n < 12 || line[n-1] != ':' {
		return a, false
	}
	if hasPrefixStr(line, "Goroutine ") && bytes.HasSuffix(line, []byte(" created at:")) {
		id, k := scanUint(line[len("Goroutine "):])
		if k == 0 {
			return a, false
		}
		rest := line[len("Goroutine ")+k : n-len(" created at:")]
		if len(rest) > 3 && rest[0] == ' ' && rest[1] == '(' && rest[len(rest)-1] == ')' {
			a.state = rest[2 : len(rest)-1]
		} else if len(rest) != 0 {
			return a, false
		}
		a.role, a.id = []byte("created"), int64(id)
		return a, true
	}
	by := bytes.Index(line, []byte(" by "))
	if by <= 0 {
		return a, false
	}
	head, who := line[:by], line[by+len(" by "):n-1]
	if k := bytes.Index(head, []byte(" at 0x")); k > 0 {
		v, m := scanHex(head[k+len(" at 0x"):])
		if m == 0 || k+len(" at 0x")+m != len(head) {
			return a, false
		}
		a.addr, head = v, head[:k]
	}
	if k := bytes.Index(head, []byte(" of size ")); k > 0 {
		v, m := scanUint(head[k+len(" of size "):])
		if m == 0 || k+len(" of size ")+m != len(head) {
			return a, false
		}
		a.size, head = int(v), head[:k]
	}
	if !isAccessRole(head) {
		return a, false
	}
	a.role = head
	switch {
	case hasPrefixStr(who, "main goroutine"):
		a.main = true
	case hasPrefixStr(who, "goroutine "):
		id, k := scanUint(who[len("goroutine "):])
		if k == 0 {
			return a, false
		}
		a.id = int64(id)
	default:
		return a, false
	}
	return a, true
}

// isAccessRole reports whether b names a memory access:
// [Previous ][atomic ]read|write, capitalised at the start.
func isAccessRole(b []byte) bool {
	s := string(b)
	for _, p := range []string{"Previous ", "previous "} {
		if len(s) > len(p) && s[:len(p)] == p {
			s = s[len(p):]
		}
	}
	for _, p := range []string{"Atomic ", "atomic "} {
		if len(s) > len(p) && s[:len(p)] == p {
			s = s[len(p):]
		}
	}
	switch s {
	case "Read", "read", "Write", "write":
		return true
	}
	return false
}

// partKind says what the open routine of the decoder really is: a
// goroutine, or a section read like one (frames, file lines) that is kept
// on the dump instead of becoming a routine.
type partKind uint8

const (
	partNone    partKind = iota // a goroutine
	partAccess                  // an access of a race report
	partCreator                 // `Goroutine N (state) created at:` of a race report
	partSystem                  // `runtime stack:` after a throw
)

// raceReport is the race report being read: open between `WARNING: DATA
// RACE` and the closing `=====`; report is kept in the dump's Races, and
// access and creator are what the part being read (partAccess,
// partCreator) will add to it.
type raceReport struct {
	open    bool
	report  *stack.Race
	access  stack.RaceAccess
	creator stack.RaceCreator
}

// inRace reports whether the open routine is a section of a race report.
func (g *goTextDecoder) inRace() bool {
	return g.rt.r != nil && (g.rt.part == partAccess || g.rt.part == partCreator)
}

// raceStart handles `WARNING: DATA RACE`. Reports belong to the dump they
// come with: one after goroutines starts a new dump, goroutines or a
// panic after reports join theirs. The dump is announced only when its
// first goroutine starts (or at its end), so that its races are complete
// when a streaming consumer sees it begin.
func (g *goTextDecoder) raceStart() {
	if g.dump.nRoutines > 0 {
		g.endDump()
	}
	g.endRoutine()
	g.ensureDump()
	g.race.report = &stack.Race{Line: g.at.num}
	g.dump.d.Races = append(g.dump.d.Races, g.race.report)
	g.race.open = true
	g.rt.want = betweenRoutines
	g.pre.open = false
}

// raceAccess opens a section for an access or creation line of the open
// report.
func (g *goTextDecoder) raceAccess(a raceAccess) {
	if string(a.role) == "created" {
		g.startPart(partCreator)
		g.race.creator = stack.RaceCreator{Goroutine: a.id, State: g.t.Bytes(a.state), Line: g.at.num}
		return
	}
	g.startPart(partAccess)
	acc := stack.RaceAccess{Addr: a.addr, Goroutine: a.id, Main: a.main, Size: a.size, Line: g.at.num}
	acc.Op, acc.Atomic, acc.Previous = codec.RaceOp(a.role)
	if acc.Main {
		acc.Goroutine = 1
	}
	g.race.access = acc
}

// startPart closes the open routine and opens a section of kind p, read
// into a scratch routine. A system stack counts as content of the dump (a
// preamble after it starts a new dump); race sections do not.
func (g *goTextDecoder) startPart(p partKind) {
	g.endRoutine()
	g.ensureDump()
	rt := &g.rt
	rt.r = &rt.partR
	*rt.r = stack.Routine{Count: 1, Line: g.at.num}
	rt.part = p
	if p == partSystem {
		g.dump.nRoutines++
		if g.dump.d.SystemStack != nil {
			g.problem("second runtime stack: section in one dump; the first is kept", nil)
		}
	}
	rt.want = wantFrame
	g.pre.open = false
}

// endPart keeps the open section on the dump.
func (g *goTextDecoder) endPart() {
	g.closeSection()
	rt := &g.rt
	r, report := rt.r, g.race.report
	switch rt.part {
	case partAccess:
		a := g.race.access
		a.Stack = r.Stack
		if report != nil {
			report.Accesses = append(report.Accesses, a)
		}
	case partCreator:
		c := g.race.creator
		c.Stack = r.Stack
		if report != nil {
			report.Creators = append(report.Creators, c)
		}
	case partSystem:
		if g.dump.d.SystemStack == nil {
			g.dump.d.SystemStack = &stack.SystemStack{Stack: r.Stack, Values: r.Values, Line: r.Line}
		}
	}
	rt.r, rt.part, rt.ancestor = nil, partNone, -1
	if rt.want != skipToNext {
		rt.want = betweenRoutines
	}
}
