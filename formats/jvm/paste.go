package jvm

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// How the text reader takes a thread dump that was pasted into an issue,
// a chat, a ticket or a log (docs/jvm.md, "Pasted dumps"). The paste's
// frame (fences, quotes, per-line prefixes, grep separators) is set aside
// by the line reader (codec.Frame); what is left to this reader:
//
//   - a thread header with text before its quote (a logger's prefix on the
//     first line, a bullet, a fence glued to it) is read as a header;
//   - flattened text (leading whitespace removed) is read as indented text:
//     `at …`, `- locked …`, `java.lang.Thread.State:` are thread lines at
//     any indentation;
//   - the input's (or paste region's) last line, when it is a piece of a
//     thread line, is dropped and the dump marked truncated with a warning;
//   - frames with no thread (a paste that starts inside a thread) are
//     counted in a warning;
//   - the JVM's deadlock report alone is a dump: its threads are read from
//     its "Java stack information" part.

// headerIn returns where a thread header starts inside line, after text a
// paste or a logger put before it, and the header; k is -1 when there is
// none.
func headerIn(line []byte) (k int, h jvmHeader) {
	for from, tries := 1, 0; from < len(line) && tries < maxFindTries; tries++ {
		i := bytes.IndexAny(line[from:], `"#`)
		if i < 0 {
			break
		}
		i += from
		if isThreadHeader(line[i:]) {
			if h, ok := parseJVMHeader(line[i:]); ok {
				return i, h
			}
		}
		from = i + 1
	}
	return -1, h
}

// isFramePrefix reports whether p, the text before a thread header on its
// line, is a paste's or a logger's, set aside without a warning: a log
// prefix, backticks, a list bullet.
func isFramePrefix(p []byte) bool {
	t := bytes.TrimSpace(p)
	switch {
	case len(t) == 0, len(bytes.Trim(t, "`")) == 0, codec.IsLogPrefix(p):
		return true
	case string(t) == "*" || string(t) == "-" || string(t) == "+" || string(t) == "•":
		return true
	}
	return false
}

// flatThreadLine reports whether line, met at column 0 inside a thread,
// is a thread line whose indentation was removed.
func flatThreadLine(line []byte) bool {
	switch {
	case bytes.HasPrefix(line, []byte("at ")),
		len(line) > 1 && line[0] == '-' && (line[1] == ' ' || line[1] == '\t'),
		bytes.HasPrefix(line, []byte("java.lang.Thread.State:")),
		bytes.HasPrefix(line, []byte("Locked ownable synchronizers:")),
		bytes.HasPrefix(line, []byte("Number of locked synchronizers")),
		bytes.HasPrefix(line, []byte("Carrying virtual thread #")),
		bytes.HasPrefix(line, []byte("Mounted virtual thread #")),
		bytes.HasPrefix(line, []byte("No compile task")),
		bytes.HasPrefix(line, []byte("Compiling:")),
		bytes.HasPrefix(line, []byte("JavaThread state: ")),
		string(line) == "...":
		return true
	}
	return false
}

// jvmStates are the states java.lang.Thread.State lines name.
var jvmStates = []string{"NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED"}

// partialLine reports whether line, the last line of the input or of a
// paste region, is a piece of a thread line the cut lost: a frame or a
// lock line without its closing parenthesis, a state cut inside its word,
// a header that does not parse.
func (d *jvmTextDecoder) partialLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	switch {
	case bytes.HasPrefix(t, []byte("at ")):
		return t[len(t)-1] != ')'
	case t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\t'):
		return !(t[len(t)-1] == ')' || t[len(t)-1] == '>' || string(bytes.TrimSpace(t[1:])) == "None")
	case bytes.HasPrefix(t, []byte("java.lang.Thread.State:")):
		st := bytes.TrimSpace(t[len("java.lang.Thread.State:"):])
		if bytes.Count(st, []byte("(")) > bytes.Count(st, []byte(")")) {
			return true
		}
		word := st
		if i := bytes.IndexAny(st, " ("); i >= 0 {
			word = st[:i]
		}
		for _, s := range jvmStates {
			if string(word) == s {
				return false
			}
		}
		return true
	case bytes.HasPrefix([]byte("java.lang.Thread.State:"), t), bytes.HasPrefix([]byte("Locked ownable synchronizers:"), t):
		return true
	case t[0] == '"':
		_, ok := parseJVMHeader(t)
		return !ok && d.cur != nil && !bytes.HasSuffix(t, []byte(`":`))
	case d.cur != nil && d.cur.toFile && len(line) > len(t):
		// A bare StackTraceElement of Thread.dump_to_file.
		return t[len(t)-1] != ')'
	}
	return false
}

// cutHeader reports whether line, the last line of the input or of a
// paste region, is a HotSpot thread header cut short: it reads as one,
// but a Java thread's ends with "[0x…]" and a VM thread's with its state
// and a space.
func cutHeader(line []byte) bool {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) < 2 || line[0] != '"' || line[len(line)-1] == ']' || line[len(line)-1] == ' ' {
		return false
	}
	h, ok := parseJVMHeader(line)
	return ok && !h.threadInfo && !h.toFile
}

// cut marks the dump truncated at line, the last line of the input or of
// a paste region, a piece of a thread line (dropped) or of its header.
func (d *jvmTextDecoder) cut(line []byte, atEOF bool) *stack.ParseError {
	d.d.Truncated = true
	if d.cur != nil {
		d.cur.cut = true
	}
	where := "the input ends"
	if !atEOF {
		where = "the paste ends"
	}
	return d.lr.ParseError("dump truncated: " + where + " mid-line inside a thread; the partial line is dropped")
}

// orphan counts a thread line met while no thread is open: the paste
// started inside a thread, or left its header out. Such lines are not read
// (their thread is unknown) but counted in a warning naming the first.
func (d *jvmTextDecoder) orphan() {
	if d.orphans.n == 0 {
		d.orphans.at = linePos{d.lr.Num(), d.lr.Line().Off}
	}
	d.orphans.n++
	d.orphans.last = d.lr.Num()
}

// orphanWarning returns the warning for the orphan lines counted, or nil.
func (d *jvmTextDecoder) orphanWarning() *stack.ParseError {
	if d.orphans.n == 0 {
		return nil
	}
	pe := &stack.ParseError{Line: d.orphans.at.num, Offset: d.orphans.at.off,
		Msg: fmt.Sprintf("%d lines of a thread whose header is not in the input skipped", d.orphans.n)}
	d.orphans.n = 0
	return pe
}

// isOrphanLine reports whether line, met with no thread open, is a line of
// a thread's stack: a frame or a lock line.
func isOrphanLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return bytes.HasPrefix(t, []byte("at ")) && bytes.HasSuffix(t, []byte(")")) ||
		len(t) > 2 && t[0] == '-' && t[1] == ' ' && (bytes.Contains(t, []byte("<0x")) || bytes.HasPrefix(t, []byte("- locked "))) ||
		isSAFrame(t)
}

// reportedState is the state of a thread of a deadlock report, inferred
// from the first lock it waits for: BLOCKED on a monitor, WAITING parked
// on a synchronizer or in Object.wait.
func reportedState(locks []stack.Lock) string {
	for _, l := range locks {
		switch l.Kind {
		case stack.LockWaitEnter:
			return "BLOCKED (on object monitor)"
		case stack.LockParked:
			return "WAITING (parking)"
		case stack.LockWaitOn:
			return "WAITING (on object monitor)"
		}
	}
	return ""
}

// endOfInput judges, at the end of the input (atEOF) or of a paste region,
// whether the thread being read was cut short, and returns the warning
// that says so (the dump is marked truncated), or nil: a Java thread with
// its header and nothing else (HotSpot prints a state line for every
// thread with an id), or, when the input's last line has no newline, a
// stack whose last frame is no thread's first.
func (d *jvmTextDecoder) endOfInput(atEOF bool) *stack.ParseError {
	b := d.cur
	if b == nil || d.d == nil {
		return nil
	}
	where := "the input ends"
	if !atEOF {
		where = "the paste ends"
	}
	var why string
	switch {
	case b.hasID && !b.hasState && len(b.frames) == 0 && !b.toFile && !b.threadInfo && b.headerEnd == d.last.num:
		why = where + " after a thread header"
	case d.gapped > 0 && !b.blank && len(b.frames) > 0 && !jvmRootFrame(b.frames[len(b.frames)-1]):
		why = fmt.Sprintf("%s inside a thread, after lines were left out at line %d: its stack may go on", where, d.gapped)
	case atEOF && d.lr.Line().NoEOL && d.frameNum == d.last.num && len(b.frames) > 0 && !jvmRootFrame(b.frames[len(b.frames)-1]):
		why = where + " mid-line inside a thread"
	case len(b.junk) > 0 && !b.blank && len(b.frames) > 0 && !jvmRootFrame(b.frames[len(b.frames)-1]):
		// Other text right after a frame, and nothing of the dump after
		// it: the thread's lines stop there (a log that dropped the rest).
		j := b.junk[0]
		b.junk = nil
		d.d.Truncated, b.cut = true, true
		return &stack.ParseError{Line: j.Line, Offset: j.Offset, Text: j.Text, Msg: "dump truncated: the thread's lines stop here, inside its stack, and other text follows to the end"}
	default:
		return nil
	}
	d.d.Truncated, b.cut = true, true
	return &stack.ParseError{Line: d.last.num, Offset: d.last.off, Msg: "dump truncated: " + why}
}

// jvmRootFrame reports whether f is where a thread's stack starts: its
// run method, a main method, a pool worker's loop.
func jvmRootFrame(f *stack.Frame) bool {
	switch fn := f.Func; fn {
	case "java.lang.Thread.run", "java.lang.VirtualThread.run",
		"jdk.internal.misc.InnocuousThread.run", "java.util.concurrent.ForkJoinWorkerThread.run",
		"java.lang.ref.Reference$ReferenceHandler.run", "java.lang.ref.Finalizer$FinalizerThread.run":
		return true
	default:
		return strings.HasSuffix(fn, ".main")
	}
}

// gap ends the thread being read where lines were left out of the paste
// (grep's separator, an ellipsis) and returns the warning that says so.
func (d *jvmTextDecoder) gap(what string, text []byte) *stack.ParseError {
	open := d.cur != nil
	d.finish()
	msg := "lines left out here (" + what + ")"
	if open {
		msg += "; the thread before it is incomplete"
	}
	d.gapped = d.lr.Num()
	return &stack.ParseError{Line: d.lr.Num(), Offset: d.lr.Line().Off, Msg: msg, Text: string(text[:min(len(text), 200)])}
}

// isEllipsis reports whether t is only an ellipsis: "...", ".....",
// "[...]", "…".
func isEllipsis(t []byte) bool {
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = t[1 : len(t)-1]
	}
	if string(t) == "…" {
		return true
	}
	return len(t) >= 3 && len(bytes.Trim(t, ".")) == 0
}
