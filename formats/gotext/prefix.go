package gotext

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
)

// A dump wrapped in a per-line prefix (journald, syslog, CRI, docker logs
// -t: see codec.LinePrefix) is read by learning the prefix from the text
// before a goroutine header (or `WARNING: DATA RACE`) found inside a line,
// then stripping it from every line that carries it. A paste's frame
// learnt from the first lines (internal/unpaste) is set aside before the
// decoder sees a line; this is for prefixes met further down, and for the
// runtime's own text logged line by line.

// learntPrefix is the prefix learnt, and the foreign lines met before it
// (ring) that are read again once it is known (replay): they may be the
// prefixed preamble of the dump. replaying is set while they are.
type learntPrefix struct {
	p         codec.LinePrefix
	ring      lineRing
	replaying bool
}

// replay feeds the foreign lines held since the last dump again, now that
// a prefix is known.
func (g *goTextDecoder) replay() {
	at := linePos{g.at.num, g.offset()}
	// The lines counted as orphans are read again.
	f := &g.foreign
	f.orphans, f.orphanCall, f.orphanGap = 0, false, 0
	g.prefix.replaying = true
	g.prefix.ring.each(func(l []byte, n int, o int64) {
		g.at = linePos{n, o}
		g.feed(l)
	})
	g.prefix.ring.reset()
	g.prefix.replaying = false
	g.at = at
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

// hiddenHeader reports whether line holds what looks like a goroutine
// header ("goroutine 12 [", "goroutine 12 gp=") that findMarker did not
// find whole: text after it (a logger's fields, a closing quote), an
// escape inside it. Such a line is not read, but counted in a warning.
func hiddenHeader(line []byte) bool {
	for from := 0; from < len(line); {
		k := bytes.Index(line[from:], []byte("goroutine "))
		if k < 0 {
			return false
		}
		k += from
		j := k + len("goroutine ")
		n := j
		for n < len(line) && isDecDigit(line[n]) {
			n++
		}
		if n > j && n+1 < len(line) && line[n] == ' ' && (line[n+1] == '[' || bytes.HasPrefix(line[n+1:], []byte("gp="))) {
			// Text before it, or after its "]:"; a header cut short at
			// the end of the input is not hidden.
			if k > 0 {
				return true
			}
			if e := bytes.Index(line[n:], []byte("]:")); e >= 0 && len(bytes.TrimSpace(line[n+e+2:])) > 0 {
				return true
			}
		}
		from = k + 1
	}
	return false
}

func isDecDigit(c byte) bool { return c >= '0' && c <= '9' }

// crashInLine returns the crash line inside line when something a paste
// or a terminal put before it hides it: the terminal's echo of Ctrl-\
// (`^\SIGQUIT: quit`), backticks glued to it (“`panic: …”), or, when
// first is set (no dump was met yet), a logger's prefix (`2024/05/01
// 10:22:01 panic: …`: a crash logged as one message).
func crashInLine(line []byte, first bool) ([]byte, bool) {
	if len(line) < 3 {
		return nil, false
	}
	switch line[0] {
	case '^':
		if rest := line[2:]; isPreambleStart(rest) {
			return rest, true
		}
		return nil, false
	case '`':
		if rest := bytes.TrimLeft(line, "`"); isPreambleStart(rest) {
			return rest, true
		}
		return nil, false
	}
	if !first {
		return nil, false
	}
	for k := bytes.IndexByte(line, ' '); k > 0 && k < len(line)-1; {
		if rest := line[k+1:]; isPreambleStart(rest) && codec.IsLogPrefix(line[:k+1]) {
			return rest, true
		}
		next := bytes.IndexByte(line[k+1:], ' ')
		if next < 0 {
			break
		}
		k += 1 + next
	}
	return nil, false
}
