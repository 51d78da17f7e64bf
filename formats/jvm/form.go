package jvm

import (
	"bytes"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// Form says which lines are JVM thread dump text's own: `Full thread
// dump`, `Found one Java-level deadlock:`, the serviceability agent's
// `Attaching to process ID N` (jstack -F) and a thread header start a
// dump, a `java.lang.Thread.State:` line is one only inside it, and a
// thread header is followed by its state line or its first frame. The
// door (package formats) composes it with the other text codecs' forms to
// sniff an input, to set a paste's frame aside (internal/unpaste) and to
// tell where a dump of another form starts.
func Form() codec.Form {
	return codec.Form{Kind: stack.KindJVMText, Line: isDumpLine, Start: startsDump, Find: findDumpLine, Block: blockFollower}
}

// isDumpLine reports whether line is one only a thread dump has (the
// serviceability agent's "Deadlock Detection:" and "No deadlocks found."
// among them, which read like prose), or one of the forms the reader
// recognizes to refuse by name (foreign.go): HotSpot's fatal error banner,
// an ART dump's "----- pid N at", a javacore's thread line.
func isDumpLine(line []byte) bool {
	return startsDump(line) || bytes.HasPrefix(line, []byte("java.lang.Thread.State: ")) ||
		foreignStart(line) != foreignNone || isSALine(line)
}

// startsDump reports whether a thread dump starts at line.
func startsDump(line []byte) bool {
	return bytes.HasPrefix(line, []byte("Full thread dump")) ||
		bytes.HasPrefix(line, []byte("Found one Java-level deadlock:")) ||
		isThreadHeader(line) || isSAAttach(line)
}

// isThreadHeader matches `"name" #N`, the same with the name in Markdown
// emphasis (`**"name"** #N`), JDK 8 jstack -F's `Thread 8393: (state = …`, `"name" daemon`, `"name" prio=`,
// `"name" os_prio=` and `"name" tid=` (VM threads), `"name" Id=N`
// (ThreadInfo), `"name" - Thread t@N` (VisualVM) and `#N "name"`
// (Thread.dump_to_file): the start of a header, looser than
// parseJVMHeader.
func isThreadHeader(line []byte) bool {
	if len(line) > 0 && (line[0] == '*' || line[0] == '_') {
		return cutEmphasis(line) != nil
	}
	if len(line) > 0 && line[0] == 'T' {
		return isSAThreadHeader(line)
	}
	if rest, ok := bytes.CutPrefix(line, []byte("#")); ok {
		n := codec.Digits(rest)
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
			if bytes.HasPrefix(rest, []byte(p)) && (p != "#" || codec.Digits(rest[1:]) > 0) {
				return true
			}
		}
		from += end + 1
	}
	return false
}

// maxFindTries bounds the places findDumpLine and isThreadHeader try: a
// prefix is short, and text of quotes must not cost the square of its
// length.
const maxFindTries = 16

// findDumpLine returns where `Full thread dump`, the agent's `Attaching to
// process ID` or a thread header starts
// inside line, after text a paste put before it; -1 when none does.
func findDumpLine(line []byte) int {
	if k := bytes.Index(line[1:], []byte("Full thread dump ")); k >= 0 {
		return k + 1
	}
	if k := bytes.Index(line[1:], saAttach); k >= 0 {
		return k + 1
	}
	if k := bytes.Index(line[1:], []byte("Thread ")); k >= 0 && isSAThreadHeader(line[k+1:]) {
		return k + 1
	}
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		k := bytes.IndexAny(line[from:], `"#`)
		if k < 0 {
			break
		}
		k += from
		if isThreadHeader(line[k:]) {
			return k
		}
		from = k + 1
	}
	return -1
}

// blockFollower returns, for a thread header, the test of the line after
// it: jstack's state line, or the first frame of the forms that have none
// (ThreadInfo.toString, Thread.dump_to_file).
func blockFollower(line []byte) func(next []byte) bool {
	if len(line) == 0 || line[0] != '"' && line[0] != '#' || !isThreadHeader(line) {
		return nil
	}
	return followsHeader
}

func followsHeader(l []byte) bool {
	return bytes.HasPrefix(l, []byte("java.lang.Thread.State: ")) || isFrameShape(l)
}

// isFrameShape reports whether l (trimmed) is a Java frame: "at
// java.lang.Thread.run(Thread.java:750)", or without "at" as
// Thread.dump_to_file writes it.
func isFrameShape(l []byte) bool {
	return len(l) > 2 && l[len(l)-1] == ')' && bytes.IndexByte(l, '(') > 0 && l[0] != '"' && l[0] != '#'
}

// emphases are the Markdown emphasis marks a paste puts around a thread's
// name, longest first.
var emphases = [...]string{"**", "__", "*", "_"}

// cutEmphasis returns line without the Markdown emphasis around the quoted
// name of a thread header (`**"main"** #1 prio=5 …` gives `"main" #1
// prio=5 …`), or nil when line is no such header.
func cutEmphasis(line []byte) []byte {
	for _, e := range emphases {
		rest, ok := bytes.CutPrefix(line, []byte(e+`"`))
		if !ok {
			continue
		}
		end := bytes.Index(rest, []byte(`"`+e+" "))
		if end < 0 {
			return nil
		}
		out := make([]byte, 0, len(line)-2*len(e))
		out = append(out, '"')
		out = append(out, rest[:end+1]...)
		out = append(out, rest[end+1+len(e):]...)
		if !isThreadHeader(out) {
			return nil
		}
		return out
	}
	return nil
}
