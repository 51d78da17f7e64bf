package formats

import "bytes"

// raceAccess is a parsed access or creation line of a race report:
//
//	Write at 0x000000620518 by goroutine 7:
//	Previous read at 0x00c000014100 by main goroutine:
//	Read by goroutine 5:                      (old TSan, no address)
//	Previous atomic write at 0x… by goroutine 3 (mutexes: write M1):
//	Goroutine 7 (running) created at:
type raceAccess struct {
	role  []byte // "Write", "Previous read", "Atomic write", "created"
	addr  uint64
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

// raceStart handles `WARNING: DATA RACE`: reports go into a dump of their
// own, numbered from 1; a report after goroutines starts a new dump.
func (g *goTextDecoder) raceStart() {
	if !g.race && (g.nRoutines > 0 || g.r != nil) {
		g.endDump()
	}
	g.endRoutine()
	g.ensureDump()
	g.race = true
	g.announce()
	g.reports++
	g.inReport = true
	g.st = stIdle
	g.preambleOpen = false
}

// raceAccess starts a routine for an access block of the open report.
func (g *goTextDecoder) raceAccess(a raceAccess) {
	g.startRoutine(a.id, g.t.Bytes(a.state))
	g.r.Race = &RaceAccess{Report: g.reports, Role: g.t.Bytes(a.role), Addr: a.addr, Main: a.main}
}
