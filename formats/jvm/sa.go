package jvm

import (
	"bytes"

	"github.com/stackdump/stackdump/stack"
)

// The serviceability agent's forced dumps: JDK 8's `jstack -F` and JDK 9+'s
// `jhsdb jstack --pid` (docs/jvm.md, "jstack -F and jhsdb jstack"). Both start
//
//	Attaching to process ID 7370, please wait...
//	Debugger attached successfully.
//	Server compiler detected.
//	JVM version is 25.161-b12
//	Deadlock Detection:
//
// then the agent's deadlock report ("No deadlocks found." or the cycles and
// "Found a total of N deadlocks."), then the threads. JDK 8 heads a thread
// with its OS thread id and the VM's state,
//
//	Thread 8393: (state = BLOCKED)
//
// JDK 9+ with a HotSpot header, its java.lang.Thread.State and the VM's
// state ("   JavaThread state: _thread_blocked"). Their frames are the
// agent's:
//
//	 - java.lang.Object.wait(long) @bci=0 (Interpreted frame)
//	 - java.util.concurrent.locks.LockSupport.park(java.lang.Object) @bci=14, line=175 (Compiled frame)

// saAttach is the agent's first line; the pid follows it.
var saAttach = []byte("Attaching to process ID ")

// parseSAAttach returns the pid of "Attaching to process ID 7370, please
// wait...", false when line is not that line.
func parseSAAttach(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, saAttach)
	if !ok {
		return "", false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	return string(rest[:n]), n > 0
}

// isSALine reports whether line is one of the agent's own lines between
// its banner and the threads.
func isSALine(line []byte) bool {
	switch string(bytes.TrimRight(line, "\r")) {
	case "Deadlock Detection:", "No deadlocks found.":
		return true
	}
	return false
}

// isSAAttach reports whether line is the agent's first line.
func isSAAttach(line []byte) bool {
	_, ok := parseSAAttach(line)
	return ok
}

// parseSAThreadHeader parses JDK 8's "Thread 8393: (state = BLOCKED)" (JDK
// 5's "Thread t@59139: ..."): the number is the OS thread's, the state the
// VM's. ok is false for any other line.
func parseSAThreadHeader(line []byte) (h jvmHeader, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte("Thread "))
	if !ok {
		return h, false
	}
	rest = bytes.TrimPrefix(rest, []byte("t@"))
	colon := bytes.IndexByte(rest, ':')
	if colon <= 0 {
		return h, false
	}
	n, ok := jvmAtoi(rest[:colon])
	if !ok {
		return h, false
	}
	st, ok := bytes.CutPrefix(rest[colon+1:], []byte(" (state = "))
	if !ok {
		return h, false
	}
	end := bytes.IndexByte(st, ')')
	if end <= 0 {
		return h, false
	}
	h.th.OSID = n
	h.state = st[:end]
	h.sa = true
	return h, true
}

// isSAThreadHeader reports whether line starts with a JDK 8 jstack -F
// thread header.
func isSAThreadHeader(line []byte) bool {
	_, ok := parseSAThreadHeader(line)
	return ok
}

// isSAFrame reports whether trim (a thread line without its indentation)
// is one of the agent's frames: "- pkg.Class.method(arg types) @bci=…".
func isSAFrame(trim []byte) bool {
	return len(trim) > 2 && trim[0] == '-' && trim[1] == ' ' && bytes.Contains(trim, []byte(") @bci="))
}

// parseSAFrame parses the text of an agent's frame after "- ": the
// function (its argument types dropped, as jstack prints none), and the
// line from "line=N". The agent prints no file: File stays empty.
func parseSAFrame(text []byte) (f stack.Frame, ok bool) {
	at := bytes.Index(text, []byte(") @bci="))
	if at < 0 {
		return f, false
	}
	open := bytes.IndexByte(text[:at], '(')
	if open <= 0 {
		return f, false
	}
	f.Func = string(bytes.TrimSpace(text[:open]))
	rest := text[at+len(") @bci="):]
	if i := bytes.Index(rest, []byte(", line=")); i >= 0 {
		num := rest[i+len(", line="):]
		n := 0
		for n < len(num) && num[n] >= '0' && num[n] <= '9' {
			n++
		}
		if v, ok := jvmAtoi(num[:n]); ok {
			f.Line = int(v)
		}
	}
	return f, f.Func != ""
}
