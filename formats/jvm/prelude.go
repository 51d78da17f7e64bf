package jvm

import (
	"bytes"
	"github.com/stackdump/stackdump/stack"
	"time"
)

// jvmPrelude remembers the last few junk lines read before a dump starts:
// the lines that carry its metadata come before it.
//
//	6835:                                  jcmd's pid line
//	2026-11-30 10:15:40                    jstack / Thread.print timestamp
//	Full thread dump OpenJDK …:
//
//	81916                                  Thread.dump_to_file: pid,
//	2025-01-14T19:27:30.373190Z            time,
//	21+35-2513                             runtime version
//
//	#1 "main"
type jvmPrelude struct {
	lines [3][]byte // oldest first
	n     int
}

// add records a junk line; blank lines are not counted.
func (p *jvmPrelude) add(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if len(line) > 128 {
		p.reset()
		return
	}
	oldest := p.lines[0]
	copy(p.lines[:], p.lines[1:])
	p.lines[2] = append(oldest[:0], line...)
	p.n = min(p.n+1, 3)
}

// reset forgets the lines: they were dump content, or were used.
func (p *jvmPrelude) reset() { p.n = 0 }

// last returns the i-th most recent line (0 = newest), or nil.
func (p *jvmPrelude) last(i int) []byte {
	if i >= p.n {
		return nil
	}
	return p.lines[2-i]
}

// hotspot fills a HotSpot dump's capture time and jcmd pid.
func (p *jvmPrelude) hotspot(d *stack.Dump) {
	i := 0
	if at, ok := parseJVMTimestamp(p.last(0)); ok {
		d.Source.CapturedAt = at
		i++
	}
	if pid, ok := bytes.CutSuffix(p.last(i), []byte(":")); ok {
		if _, ok := jvmAtoi(pid); ok {
			d.Source.Target = string(pid)
		}
	}
}

// isToFile reports whether the last three lines are a Thread.dump_to_file
// pid/time/version prelude.
func (p *jvmPrelude) isToFile() bool {
	_, pidOK := jvmAtoi(p.last(2))
	_, timeOK := parseJVMISOTime(p.last(1))
	v := p.last(0)
	return pidOK && timeOK && len(v) > 0 && v[0] >= '0' && v[0] <= '9' && bytes.IndexByte(v, ' ') < 0
}

// toFile fills a Thread.dump_to_file dump's pid, time and runtime version.
func (p *jvmPrelude) toFile(d *stack.Dump) {
	if !p.isToFile() {
		return
	}
	d.Source.Target = string(p.last(2))
	d.Source.CapturedAt, _ = parseJVMISOTime(p.last(1))
	d.Source.Runtime = string(p.last(0))
}

// parseJVMTimestamp parses HotSpot's "2026-11-30 10:15:40" (the JVM host's
// local time, zone unknown: kept as written, in WallClock). A fraction of a
// second, which stackdump writes for times it got elsewhere, is accepted.
func parseJVMTimestamp(b []byte) (time.Time, bool) {
	if len(b) < 19 || len(b) > 29 || b[4] != '-' || b[10] != ' ' || b[13] != ':' {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05.999999999", string(b), WallClock)
	return t, err == nil
}

// WallClock is the location of the capture times jstack and jcmd print
// ("2026-11-30 10:15:40"): the dumped host's local time, its zone not
// said. The time is kept as written (its offset taken as 0), in this
// location, so that a reader of the time can say it is local, not UTC.
var WallClock = time.FixedZone("local", 0)

// parseJVMISOTime parses an ISO-8601 instant ("2025-01-14T19:27:30.373190Z").
func parseJVMISOTime(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[4] != '-' || b[10] != 'T' {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	return t, err == nil
}

// parseJVMDumpLine reads what follows "Full thread dump":
//
//	" OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):"
//	"  [Sat Mar 15 14:48:56 KST 2008] (Java HotSpot(TM) 64-Bit Server VM 1.5.0.11 … mixed mode):"  (HP-UX)
//
// The HP-UX date may be localised (EUC-KR month names); only its numbers
// are used, as a wall clock (WallClock: its zone name is not read).
func parseJVMDumpLine(rest []byte) (runtime string, at time.Time) {
	rest = bytes.TrimSpace(rest)
	if len(rest) > 0 && rest[0] == '[' {
		if end := bytes.IndexByte(rest, ']'); end > 0 {
			at = parseJVMBracketDate(rest[1:end])
			rest = bytes.TrimSpace(rest[end+1:])
		}
	}
	rest = bytes.TrimSpace(bytes.TrimSuffix(rest, []byte(":")))
	if len(rest) > 1 && rest[0] == '(' && rest[len(rest)-1] == ')' {
		rest = bytes.TrimSpace(rest[1 : len(rest)-1])
	}
	return string(rest), at
}

var jvmMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseJVMBracketDate reads "Sat Mar 15 14:48:56 KST 2008", with the
// month possibly written as a number followed by a localised suffix.
func parseJVMBracketDate(b []byte) time.Time {
	f := bytes.Fields(b)
	if len(f) != 6 {
		return time.Time{}
	}
	month := 0
	for i, m := range jvmMonths {
		if bytes.HasPrefix(f[1], []byte(m)) {
			month = i + 1
		}
	}
	if month == 0 {
		n := 0
		for n < len(f[1]) && f[1][n] >= '0' && f[1][n] <= '9' {
			n++
		}
		m, _ := jvmAtoi(f[1][:n])
		month = int(m)
	}
	day, okDay := jvmAtoi(f[2])
	year, okYear := jvmAtoi(f[5])
	clock, err := time.Parse("15:04:05", string(f[3]))
	if month < 1 || month > 12 || !okDay || !okYear || err != nil {
		return time.Time{}
	}
	return time.Date(int(year), time.Month(month), int(day), clock.Hour(), clock.Minute(), clock.Second(), 0, WallClock)
}
