package debug1

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// Form says which lines are debug=1 text's own: a profile header
// (`NAME profile: total N`) and a record line (`N @ 0x… 0x…`) start a
// dump, and a record is followed by its `#` frame lines. The door
// (package formats) composes it with the other text codecs' forms to
// sniff an input, to set a paste's frame aside (internal/unpaste) and to
// tell where a dump of another form starts.
func Form() codec.Form {
	return codec.Form{Kind: stack.KindGoDebug1, Line: startsDump, Start: startsDump, Find: findDumpLine, Block: blockFollower}
}

// startsDump reports whether line is a profile header or a record line.
func startsDump(line []byte) bool { return isProfileHeader(line) || isRecordLine(line) }

// isProfileHeader matches `NAME profile: total N`.
func isProfileHeader(line []byte) bool {
	i := bytes.Index(line, []byte(" profile: total "))
	return i > 0 && bytes.IndexByte(line[:i], ' ') < 0 && codec.Digits(line[i+len(" profile: total "):]) > 0
}

// isRecordLine matches a record line, `N @ 0x… 0x…`.
func isRecordLine(line []byte) bool {
	n := codec.Digits(line)
	if n == 0 || !bytes.HasPrefix(line[n:], []byte(" @ 0x")) {
		return false
	}
	for _, f := range bytes.Fields(line[n+3:]) {
		if len(f) < 3 || f[0] != '0' || f[1] != 'x' || !isHexDigits(f[2:]) {
			return false
		}
	}
	return true
}

// isHexDigits reports whether b is made of hex digits (of any length).
func isHexDigits(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// findDumpLine returns where a profile header or a record line starts
// inside line, after text a paste put before it; -1 when none does.
func findDumpLine(line []byte) int {
	if k := bytes.Index(line, []byte(" profile: total ")); k > 0 {
		start := k
		for start > 0 && isWordByte(line[start-1]) {
			start--
		}
		if start > 0 && isProfileHeader(line[start:]) {
			return start
		}
	}
	if k := bytes.Index(line, []byte(" @ 0x")); k > 0 && line[0] != '#' {
		// (A '#' line is a frame line: what it holds is its own.)
		start := k
		for start > 0 && line[start-1] >= '0' && line[start-1] <= '9' {
			start--
		}
		if start > 0 && start < k && isRecordLine(line[start:]) {
			return start
		}
	}
	return -1
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// blockFollower returns, for a record line, the test of the line after
// it: a `#` frame line.
func blockFollower(line []byte) func(next []byte) bool {
	if len(line) == 0 || line[0] < '0' || line[0] > '9' || !isRecordLine(line) {
		return nil
	}
	return isFrameLine
}

func isFrameLine(l []byte) bool { return bytes.HasPrefix(l, []byte("#")) }
