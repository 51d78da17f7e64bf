package gotext

import "bytes"

// linePrefix is a per-line prefix that wraps a dump, learnt from the text
// before a goroutine header (or `WARNING: DATA RACE`) found inside a line:
//
//	    goroutine 1 [running]:                                         plain indentation
//	Nov 30 10:00:00 host app[123]: goroutine 1 [running]:             journald / syslog
//	2026-11-30T10:00:00.123456789Z stderr F goroutine 1 [running]:    CRI (containerd, CRI-O)
//	2026-11-30T10:00:00.123456789Z goroutine 1 [running]:             docker logs -t
//
// A whitespace-only prefix must match exactly. Any other prefix is a
// shape: each run of digits in it matches a run of one or more digits,
// each run of spaces one or more spaces, and other bytes match themselves,
// so timestamps and padded days change from line to line while host, unit
// and stream must stay the same.
type linePrefix struct {
	text  []byte // the prefix as first seen; empty when there is none
	exact bool   // whitespace only: match text exactly
}

// set learns the prefix p.
func (lp *linePrefix) set(p []byte) {
	lp.text = append(lp.text[:0], p...)
	lp.exact = isBlankLine(p)
}

// active reports whether a prefix was learnt.
func (lp *linePrefix) active() bool { return len(lp.text) > 0 }

// strip returns line without the prefix, or line itself when it does not
// carry it.
func (lp *linePrefix) strip(line []byte) []byte {
	if len(lp.text) == 0 {
		return line
	}
	if lp.exact {
		if bytes.HasPrefix(line, lp.text) {
			return line[len(lp.text):]
		}
		return line
	}
	if n := lp.match(line); n > 0 {
		return line[n:]
	}
	return line
}

// match returns the length of the prefix at the start of line, 0 when the
// line does not carry it.
func (lp *linePrefix) match(line []byte) int {
	p, i := lp.text, 0
	for j := 0; j < len(p); {
		c := p[j]
		switch {
		case isDecDigit(c):
			for j < len(p) && isDecDigit(p[j]) {
				j++
			}
			k := i
			for i < len(line) && isDecDigit(line[i]) {
				i++
			}
			if i == k {
				return 0
			}
		case c == ' ':
			run := 0
			for j < len(p) && p[j] == ' ' {
				j++
				run++
			}
			if j == len(p) {
				// The prefix's last spaces match exactly, so that the
				// indentation of what follows is kept.
				for ; run > 0; run-- {
					if i >= len(line) || line[i] != ' ' {
						return 0
					}
					i++
				}
				break
			}
			// Inner runs take one or more spaces: days are padded
			// ("Nov  1"), field widths vary.
			k := i
			for i < len(line) && line[i] == ' ' {
				i++
			}
			if i == k {
				return 0
			}
		default:
			if i >= len(line) || line[i] != c {
				return 0
			}
			i++
			j++
		}
	}
	return i
}

// findMarker looks for a goroutine header or a race report start inside a
// line that does not begin with one, and returns where it starts (-1 when
// there is none).
func findMarker(line []byte) int {
	for from := 1; from < len(line); {
		k := bytes.Index(line[from:], []byte("goroutine "))
		if k < 0 {
			break
		}
		k += from
		var h goHeader
		if parseHeader(line[k:], &h) {
			return k
		}
		from = k + 1
	}
	if k := bytes.Index(line, []byte("WARNING: DATA RACE")); k > 0 && len(line)-k == len("WARNING: DATA RACE") {
		return k
	}
	return -1
}

func isDecDigit(c byte) bool { return c >= '0' && c <= '9' }
