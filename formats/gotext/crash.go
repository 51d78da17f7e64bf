package gotext

import (
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// CrashKind says what ended the process a dump was printed by.
type CrashKind string

// The kinds of crash [CrashOf] tells apart.
const (
	CrashPanic    CrashKind = "panic"    // panic: … (recovered and repanicked chains included)
	CrashFatal    CrashKind = "fatal"    // fatal error: … (a throw: concurrent map writes, stack overflow)
	CrashDeadlock CrashKind = "deadlock" // all goroutines are asleep, or main called runtime.Goexit
	CrashTimeout  CrashKind = "timeout"  // panic: test timed out after … (go test -timeout)
	// CrashSignal is a signal that did not become a panic: a SIGQUIT or
	// SIGABRT dump, a fault outside Go code ("SIGSEGV: segmentation
	// violation" with "PC="), a fault during runtime execution. A nil
	// dereference or other fault in Go code that the runtime turned into
	// a run-time panic ("panic: runtime error: …" with its "[signal …]"
	// line) is a CrashPanic: recover could have caught it.
	CrashSignal CrashKind = "signal"
)

// Crash is what a dump's preamble says crashed.
type Crash struct {
	Kind CrashKind
	// Message is the crash as the runtime wrote it, without the leading
	// "panic: " or "fatal error: " and the tab that indents continuation
	// lines: multi-line panic values, "[recovered]" chains and nested
	// panics ("…\npanic: second"), then the "[signal …]" line when a
	// fault caused it (a nil dereference's run-time panic, a fault during
	// runtime execution).
	Message string
	// InRoutine is set when the crash happened in a goroutine the runtime
	// prints first (panics, throws, faults); not for deadlocks, timeouts
	// or signals sent from outside (SIGQUIT, SIGABRT).
	InRoutine bool
	// Tests are the tests a go test timeout names as still running.
	Tests []string
}

// CrashOf reads a dump's preamble ([stack.Dump.Preamble]) and returns the crash
// it reports, or nil when the dump does not come from one (runtime.Stack,
// debug=2, a JVM dump).
func CrashOf(preamble []string) *Crash {
	for i, line := range preamble {
		switch {
		case strings.HasPrefix(line, "panic: "):
			return panicCrash(preamble[i:])
		case strings.HasPrefix(line, "fatal error: "):
			return fatalCrash(preamble[i:])
		case strings.HasPrefix(line, "unexpected signal "), strings.HasPrefix(line, "unexpected fault address "),
			strings.HasPrefix(line, "Exception 0x"):
			return &Crash{Kind: CrashSignal, Message: joinCrashLines(preamble[i:]), InRoutine: true}
		case isPreambleStart([]byte(line)) && strings.HasPrefix(line, "SIG"):
			name, _, _ := strings.Cut(line, ":")
			return &Crash{Kind: CrashSignal, Message: line, InRoutine: isFaultSignal(name)}
		}
	}
	return nil
}

// panicCrash reads a panic and its continuation lines.
func panicCrash(lines []string) *Crash {
	c := &Crash{Kind: CrashPanic, InRoutine: true}
	msg := []string{strings.TrimPrefix(lines[0], "panic: ")}
	rest := lines[1:]
	// Go 1.21+ indents the value's further lines with a tab; older
	// runtimes print them as they are.
	// A nested panic (`panic: A [recovered]` then `panic: B`) continues
	// the chain, also where a paste removed its tab.
	for len(rest) > 0 && (strings.HasPrefix(rest[0], "\t") || strings.HasPrefix(rest[0], "panic: ") || !startsCrashLine(rest[0])) {
		msg = append(msg, strings.TrimPrefix(rest[0], "\t"))
		rest = rest[1:]
	}
	if len(rest) > 0 && strings.HasPrefix(rest[0], "[signal ") {
		// A fault the runtime turned into a run-time panic ("invalid
		// memory address or nil pointer dereference"): still a panic,
		// which recover could have caught; the signal line is part of
		// its message.
		msg = append(msg, rest[0])
	}
	if strings.HasPrefix(msg[0], "test timed out after ") {
		c.Kind, c.InRoutine = CrashTimeout, false
		for _, l := range msg[1:] {
			// "\tTestHang (2s)" under "running tests:"
			if name, ok := strings.CutPrefix(l, "\t"); ok {
				name, _, _ = strings.Cut(name, " ")
				c.Tests = append(c.Tests, name)
			}
		}
	}
	if strings.HasPrefix(msg[0], "deadlock: ") { // testing/synctest
		c.Kind, c.InRoutine = CrashDeadlock, false
	}
	c.Message = strings.Join(msg, "\n")
	return c
}

// startsCrashLine reports whether a preamble line is one of the lines
// that follow a panic's value rather than continue it.
func startsCrashLine(line string) bool {
	for _, p := range []string{"[signal ", "PC=", "runtime: ", "fatal error: ", "fatal: ", "goroutine ", "signal arrived during "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return isPreambleStart([]byte(line))
}

// fatalCrash reads a `fatal error:` throw.
func fatalCrash(lines []string) *Crash {
	text := strings.TrimPrefix(lines[0], "fatal error: ")
	c := &Crash{Kind: CrashFatal, Message: text, InRoutine: true}
	if strings.HasPrefix(text, "all goroutines are asleep") || strings.HasPrefix(text, "no goroutines (main called runtime.Goexit)") {
		c.Kind, c.InRoutine = CrashDeadlock, false
	}
	if len(lines) > 1 && strings.HasPrefix(lines[1], "[signal ") {
		// "unexpected signal during runtime execution": a fault the
		// runtime could not turn into a panic.
		c.Kind = CrashSignal
		c.Message += "\n" + lines[1]
	}
	return c
}

// joinCrashLines joins the lines of a fault report, leaving out `PC=`
// and `runtime:` diagnostics.
func joinCrashLines(lines []string) string {
	var keep []string
	for _, l := range lines {
		if strings.HasPrefix(l, "PC=") || strings.HasPrefix(l, "runtime: ") {
			continue
		}
		keep = append(keep, strings.TrimPrefix(l, "fatal error: "))
	}
	return strings.Join(keep, "\n")
}

// isFaultSignal reports whether the signal named is one a thread raises
// by faulting, rather than one sent to the process.
func isFaultSignal(name string) bool {
	switch name {
	case "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGTRAP":
		return true
	}
	return false
}

// CrashWatch keeps, while a dump's routines stream by, those that may
// turn out to be the one that crashed once [CrashOf] has read the
// preamble: the first goroutine (the runtime prints the crashing one
// first; race accesses and `runtime stack:` are not routines), and
// goroutines running tests (testing.tRunner), for go test timeouts. Its
// zero value is ready; it keeps copies, so routines may be reused.
type CrashWatch struct {
	first      *stack.Routine
	seenFirst  bool
	candidates []*stack.Routine
}

// maxCrashCandidates bounds the goroutines running tests a CrashWatch
// keeps.
const maxCrashCandidates = 64

// Add looks at r, the next routine of the dump.
func (w *CrashWatch) Add(r *stack.Routine) {
	if r == nil {
		return
	}
	if !w.seenFirst {
		w.seenFirst = true
		w.first = r.Clone()
		return
	}
	if len(w.candidates) < maxCrashCandidates && runsTests(r) {
		w.candidates = append(w.candidates, r.Clone())
	}
}

// Culprit returns the routine that crashed in c: for a crash in a
// goroutine, the dump's first goroutine (goroutine 0 for a fault on an OS
// thread's own stack); for a go test timeout, a
// goroutine running one of the tests named; nil when none is known.
func (w *CrashWatch) Culprit(c *Crash) *stack.Routine {
	switch {
	case c == nil:
		return nil
	case len(c.Tests) > 0:
		if w.first != nil && runsTest(w.first, c.Tests) {
			return w.first
		}
		for _, r := range w.candidates {
			if runsTest(r, c.Tests) {
				return r
			}
		}
	case c.InRoutine && w.first != nil && (w.first.ID > 0 || c.Kind == CrashSignal):
		// A fault signal may hit an OS thread's own stack: the runtime
		// prints it first, as goroutine 0.
		return w.first
	}
	return nil
}

func runsTests(r *stack.Routine) bool {
	for _, f := range r.Frames() {
		if f.Func == "testing.tRunner" {
			return true
		}
	}
	return false
}

// runsTest reports whether one of r's frames is the function of one of
// tests ("TestHang", "TestHang/sub" runs in TestHang's function or a
// closure of it).
func runsTest(r *stack.Routine, tests []string) bool {
	for _, f := range r.Frames() {
		name := f.Name()
		for _, t := range tests {
			top, _, _ := strings.Cut(t, "/")
			if name == top || strings.HasPrefix(name, top+".") {
				return true
			}
		}
	}
	return false
}
