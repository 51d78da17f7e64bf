package codec

import "bytes"

// LinePrefix is a per-line prefix that wraps a dump, learnt from the text
// before a line only a dump has (a goroutine header, a JVM thread header)
// found inside a line:
//
//	    goroutine 1 [running]:                                         plain indentation
//	Nov 30 10:00:00 host app[123]: goroutine 1 [running]:             journald / syslog
//	2026-11-30T10:00:00.123456789Z stderr F goroutine 1 [running]:    CRI (containerd, CRI-O)
//	2026-11-30T10:00:00.123456789Z "main" #1 prio=5 ...               docker logs -t
//	[pod/api-5d4f7c9b8-0a1b2/app] goroutine 1 [running]:              kubectl logs --prefix
//
// A whitespace-only prefix must match exactly. Any other prefix is a
// shape: each run of digits in it matches a run of one or more digits,
// each run of spaces one or more spaces, and other bytes match themselves,
// so timestamps and padded days change from line to line while host, unit
// and stream must stay the same.
type LinePrefix struct {
	text  []byte // the prefix as first seen; empty when there is none
	exact bool   // whitespace only: match text exactly
}

// Set learns the prefix p.
func (lp *LinePrefix) Set(p []byte) {
	lp.text = append(lp.text[:0], p...)
	lp.exact = len(bytes.Trim(p, " \t")) == 0
}

// Text returns the prefix as it was learnt.
func (lp *LinePrefix) Text() []byte { return lp.text }

// Active reports whether a prefix was learnt.
func (lp *LinePrefix) Active() bool { return len(lp.text) > 0 }

// Strip returns line without the prefix, or line itself when it does not
// carry it.
func (lp *LinePrefix) Strip(line []byte) []byte {
	if len(lp.text) == 0 {
		return line
	}
	if lp.exact {
		if bytes.HasPrefix(line, lp.text) {
			return line[len(lp.text):]
		}
		return line
	}
	if n := matchShape(lp.text, line, true); n > 0 {
		return line[n:]
	}
	return line
}

// Match returns the length of the prefix at the start of line, 0 when the
// line does not carry it.
func (lp *LinePrefix) Match(line []byte) int {
	if lp.exact {
		if bytes.HasPrefix(line, lp.text) {
			return len(lp.text)
		}
		return 0
	}
	return matchShape(lp.text, line, true)
}

// MatchBare reports whether line is the prefix alone without the spaces
// that end it: how some log systems write a blank line ("jvm 1    |").
func (lp *LinePrefix) MatchBare(line []byte) bool {
	bare := bytes.TrimRight(lp.text, " ")
	if len(bare) == len(lp.text) || len(bare) == 0 || lp.exact {
		return false
	}
	return matchShape(bare, line, true) == len(bytes.TrimRight(line, " "))
}

// MatchTail returns the length of the longest tail of the prefix that
// starts line, 0 when none does: the first line of a log selected from
// inside its first time stamp ("3.6367390Z panic: …" under a prefix of
// "2024-10-09T09:16:43.6367390Z "). A tail is at least two bytes and
// holds more than spaces.
func (lp *LinePrefix) MatchTail(line []byte) int {
	if lp.exact || len(lp.text) < 2 {
		return 0
	}
	for j := 1; j <= len(lp.text)-2; j++ {
		tail := lp.text[j:]
		if len(bytes.TrimRight(tail, " ")) == 0 {
			break
		}
		if n := matchShape(tail, line, true); n > 0 {
			return n
		}
	}
	return 0
}

// matchShape returns the length of the shape p at the start of line, 0
// when line does not start with it. With exactEnd the shape's last run of
// spaces matches exactly, so that the indentation of what follows is kept.
func matchShape(p, line []byte, exactEnd bool) int {
	i := 0
	for j := 0; j < len(p); {
		c := p[j]
		switch {
		case isDigit(c):
			for j < len(p) && isDigit(p[j]) {
				j++
			}
			k := i
			for i < len(line) && isDigit(line[i]) {
				i++
			}
			if i == k {
				return 0
			}
		case c == ' ':
			lead := j == 0
			run := 0
			for j < len(p) && p[j] == ' ' {
				j++
				run++
			}
			if j == len(p) && exactEnd {
				for ; run > 0; run-- {
					if i >= len(line) || line[i] != ' ' {
						return 0
					}
					i++
				}
				break
			}
			// Inner runs take one or more spaces: days are padded
			// ("Nov  1"), field widths vary; a leading run takes none
			// too (right-aligned line numbers grow into it).
			k := i
			for i < len(line) && line[i] == ' ' {
				i++
			}
			if i == k && !lead {
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
