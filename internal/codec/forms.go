package codec

import (
	"bytes"

	"github.com/stackdump/stackdump/stack"
)

// The lines only a dump has, by the text form they belong to. They are
// what sniffing looks for, what the paste frame is learnt from (the text
// before such a line found inside a line is the paste's prefix), and what
// tells a text reader that a dump of another form starts (OtherFormError).

// LineForm names the text form whose dump line starts line, or "" for any
// other line: a goroutine header or race report (Go traceback), a
// `goroutine profile: total N` header or an `N @ 0x…` record (debug=1),
// a `Found one Java-level deadlock:` or `Full thread dump`
// line, a `java.lang.Thread.State:` line or a thread header (JVM text).
// Leading blanks are skipped.
func LineForm(line []byte) stack.Kind {
	line = bytes.TrimLeft(line, " \t")
	switch {
	case IsGoHeader(line), bytes.HasPrefix(line, []byte("WARNING: DATA RACE")):
		return stack.KindGoTraceback
	case IsProfileHeader(line), IsDebug1Record(line):
		return stack.KindGoDebug1
	case bytes.HasPrefix(line, []byte("Full thread dump")),
		bytes.HasPrefix(line, []byte("java.lang.Thread.State: ")),
		bytes.HasPrefix(line, []byte("Found one Java-level deadlock:")),
		IsJVMThreadHeader(line):
		return stack.KindJVMText
	}
	return ""
}

// StartForm names the text form whose dump starts at line, or "": as
// LineForm without the lines that only continue a dump
// (`java.lang.Thread.State:`), at column 0 only.
func StartForm(line []byte) stack.Kind {
	if len(line) == 0 || line[0] == ' ' || line[0] == '\t' {
		return ""
	}
	if bytes.HasPrefix(line, []byte("java.lang.Thread.State: ")) {
		return ""
	}
	return LineForm(line)
}

// FindForm looks for a dump line that does not start line but starts
// inside it, after a prefix a paste put there (a time stamp, a log
// level, a quote mark, a fence), and returns where it starts and its
// form; -1 and "" when there is none. A goroutine header, a race report
// start, a debug=1 profile header, a `Full thread dump` line and a JVM
// thread header are looked for.
func FindForm(line []byte) (int, stack.Kind) {
	if len(line) < 2 {
		return -1, ""
	}
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		k := bytes.Index(line[from:], []byte("goroutine "))
		if k < 0 {
			break
		}
		k += from
		if IsGoHeader(line[k:]) {
			return k, stack.KindGoTraceback
		}
		from = k + 1
	}
	if k := bytes.Index(line, []byte(" profile: total ")); k > 0 {
		start := k
		for start > 0 && isWordByte(line[start-1]) {
			start--
		}
		if start > 0 && IsProfileHeader(line[start:]) {
			return start, stack.KindGoDebug1
		}
	}
	if k := bytes.Index(line, []byte(" @ 0x")); k > 0 && line[0] != '#' {
		// (A '#' line is a debug=1 frame line: what it holds is its own.)
		start := k
		for start > 0 && isDigit(line[start-1]) {
			start--
		}
		if start > 0 && start < k && IsDebug1Record(line[start:]) {
			return start, stack.KindGoDebug1
		}
	}
	if k := bytes.Index(line, []byte("WARNING: DATA RACE")); k > 0 && len(bytes.TrimRight(line[k:], "\r")) == len("WARNING: DATA RACE") {
		return k, stack.KindGoTraceback
	}
	if k := bytes.Index(line[1:], []byte("Full thread dump ")); k >= 0 {
		return k + 1, stack.KindJVMText
	}
	// A few places only: a prefix is short, and text of quotes must not
	// cost the square of its length.
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		k := bytes.IndexAny(line[from:], `"#`)
		if k < 0 {
			break
		}
		k += from
		if IsJVMThreadHeader(line[k:]) {
			return k, stack.KindJVMText
		}
		from = k + 1
	}
	return -1, ""
}

// maxFindTries bounds the places FindForm and IsJVMThreadHeader try.
const maxFindTries = 16

func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// IsGoHeader matches `goroutine N [` and `goroutine N gp=… [`.
func IsGoHeader(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("goroutine "))
	if !ok {
		return false
	}
	n := digits(rest)
	return n > 0 && len(rest) > n+1 && rest[n] == ' ' && (rest[n+1] == '[' || bytes.HasPrefix(rest[n+1:], []byte("gp=")))
}

// IsProfileHeader matches `NAME profile: total N` (debug=1).
func IsProfileHeader(line []byte) bool {
	i := bytes.Index(line, []byte(" profile: total "))
	return i > 0 && bytes.IndexByte(line[:i], ' ') < 0 && digits(line[i+len(" profile: total "):]) > 0
}

// IsDebug1Record matches a debug=1 record line, `N @ 0x… 0x…`.
func IsDebug1Record(line []byte) bool {
	n := digits(line)
	if n == 0 || !bytes.HasPrefix(line[n:], []byte(" @ 0x")) {
		return false
	}
	for _, f := range bytes.Fields(line[n+3:]) {
		if len(f) < 3 || f[0] != '0' || f[1] != 'x' {
			return false
		}
		for _, c := range f[2:] {
			if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// IsJVMThreadHeader matches `"name" #N`, `"name" daemon`, `"name" prio=`,
// `"name" os_prio=` and `"name" tid=` (VM threads),
// `"name" Id=N` (ThreadInfo), `"name" - Thread t@N` (VisualVM) and
// `#N "name"` (Thread.dump_to_file).
func IsJVMThreadHeader(line []byte) bool {
	if rest, ok := bytes.CutPrefix(line, []byte("#")); ok {
		n := digits(rest)
		return n > 0 && bytes.HasPrefix(rest[n:], []byte(` "`))
	}
	if len(line) < 2 || line[0] != '"' {
		return false
	}
	// The name is raw (it may hold quotes): any of its first quotes may
	// close it.
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		end := bytes.IndexByte(line[from:], '"')
		if end < 0 {
			return false
		}
		rest := bytes.TrimLeft(line[from+end+1:], " \t")
		for _, p := range []string{"#", "daemon", "prio=", "os_prio=", "tid=", "Id=", "- Thread t@"} {
			if bytes.HasPrefix(rest, []byte(p)) && (p != "#" || digits(rest[1:]) > 0) {
				return true
			}
		}
		from += end + 1
	}
	return false
}

// digits counts the leading ASCII digits of b.
func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}
