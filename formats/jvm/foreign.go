package jvm

import (
	"bytes"
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// Text forms near a thread dump that the reader recognizes and does not
// read (docs/jvm.md, "Forms refused by name"): their lines are set aside
// with one warning naming the form, never read as threads, and an input
// that holds nothing else is refused with that warning as its error.
//
//   - HotSpot's fatal error log (hs_err_pid<pid>.log): its "Java Threads:"
//     list names the threads with their VM state and no stack.
//   - An Android ART thread dump (an ANR trace, /data/anr/traces.txt):
//     "----- pid N at … -----" to "----- end N -----" (the other way round
//     in a paste read from its last line up).
//   - An OpenJ9 javacore: every line tagged ("3XMTHREADINFO", "4XESTACKTRACE").
type foreignKind uint8

const (
	foreignNone foreignKind = iota
	foreignHsErr
	foreignART
	foreignJavacore
)

// foreignWhat is the sentence that names each form in its warning.
var foreignWhat = [...]string{
	foreignHsErr:    "a HotSpot fatal error log (hs_err_pid): its Java Threads list has no stacks, so it is not read as a thread dump; take one with jstack or jcmd Thread.print",
	foreignART:      "an Android ART thread dump (an ANR trace): its form is not read",
	foreignJavacore: "an OpenJ9 javacore: its form is not read; take a dump with jstack or jcmd Thread.print",
}

// foreignStart returns the form whose first line (or a line only it has)
// line is, or foreignNone.
func foreignStart(line []byte) foreignKind {
	if len(line) == 0 {
		return foreignNone
	}
	switch c := line[0]; {
	case c == '#':
		if bytes.HasPrefix(line, []byte("# A fatal error has been detected by the Java Runtime Environment")) {
			return foreignHsErr
		}
	case c == 'J':
		if bytes.HasPrefix(line, []byte("Java Threads: ( => current thread )")) {
			return foreignHsErr
		}
	case c == '-':
		if isARTStart(line) || isARTEnd(line) {
			// The end line first: a paste read from its last line up.
			return foreignART
		}
	case c == 'D':
		if bytes.HasPrefix(line, []byte("DALVIK THREADS")) {
			return foreignART
		}
	case c >= '0' && c <= '9':
		if isJavacoreLine(line) {
			return foreignJavacore
		}
	}
	return foreignNone
}

// isJavacoreLine reports whether line starts with a javacore tag: a digit,
// two or more upper-case letters and digits ("3XMTHREADINFO",
// "0SECTION"), then spaces.
func isJavacoreLine(line []byte) bool {
	if len(line) < 4 || line[0] < '0' || line[0] > '9' {
		return false
	}
	n := 1
	for n < len(line) && (line[n] >= 'A' && line[n] <= 'Z' || line[n] >= '0' && line[n] <= '9') {
		n++
	}
	return n >= 4 && line[1] >= 'A' && line[1] <= 'Z' && n < len(line) && (line[n] == ' ' || line[n] == '\t')
}

// foreignState is what the reader keeps of the forms it refuses: run is
// the run of lines being set aside, first the warning of the first run
// (the error of an input with nothing else), pending the warnings of runs
// met between dumps, for the next dump; dumps counts the dumps returned.
type foreignState struct {
	run     *foreignRun
	first   *stack.ParseError
	pending []*stack.ParseError
	dumps   int
}

// foreignRun is a run of lines of a form the reader does not read.
type foreignRun struct {
	kind    foreignKind
	line    int   // its first line
	off     int64 // and that line's offset
	text    []byte
	threads int // javacore threads (3XMTHREADINFO) met
	// reversed is set for an ART dump met at its end line: its lines come
	// newest first, and it ends at its "----- pid" line.
	reversed bool
}

// isARTStart reports whether line starts an ART dump's section: "----- pid
// 28941 at 2023-04-04 22:06:31.064728684+0200 -----", or its "----- Waiting
// Channels: pid 28941 at …" section.
func isARTStart(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("----- "))
	if !ok {
		return false
	}
	rest = bytes.TrimPrefix(rest, []byte("Waiting Channels: "))
	return bytes.HasPrefix(rest, []byte("pid ")) && bytes.Contains(rest, []byte(" at "))
}

// isARTEnd reports whether line is an ART dump's "----- end 28941 -----".
func isARTEnd(line []byte) bool {
	return bytes.HasPrefix(line, []byte("----- end ")) && bytes.HasSuffix(bytes.TrimRight(line, "\r"), []byte(" -----"))
}

// inForeign reports whether line belongs to the foreign run being set
// aside, and counts it; a line that ends the run is not part of it (an
// ART dump's "----- end N -----" line is, and ends it).
func (d *jvmTextDecoder) inForeign(line []byte) bool {
	f := d.foreign.run
	if f == nil {
		return false
	}
	if d.other.forms.StartForm(line) != "" {
		d.foreign.run = nil // a dump of another form (a Go dump) after it
		return false
	}
	switch f.kind {
	case foreignHsErr:
		if bytes.HasPrefix(line, []byte("Full thread dump")) {
			d.foreign.run = nil
			return false
		}
	case foreignART:
		if f.reversed && isARTStart(line) || !f.reversed && isARTEnd(line) {
			d.foreign.run = nil
		} else if bytes.HasPrefix(line, []byte("Full thread dump")) {
			d.foreign.run = nil
			return false
		}
	case foreignJavacore:
		t := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(line, []byte("3XMTHREADINFO ")):
			f.threads++
		case isJavacoreLine(line), bytes.HasPrefix(line, []byte("NULL")), len(t) == 0, string(t) == "...":
		default:
			d.foreign.run = nil
			return false
		}
	}
	return true
}

// startForeign starts setting aside a run of a foreign form at line and
// returns the warning that names it.
func (d *jvmTextDecoder) startForeign(k foreignKind, line []byte) *stack.ParseError {
	d.foreign.run = &foreignRun{kind: k, line: d.lr.Num(), off: d.lr.Line().Off, text: bytes.Clone(line), reversed: isARTEnd(line)}
	if k == foreignJavacore && bytes.HasPrefix(line, []byte("3XMTHREADINFO ")) {
		d.foreign.run.threads++
	}
	pe := d.foreignWarning()
	if d.foreign.first == nil {
		d.foreign.first = pe
	}
	return pe
}

// foreignWarning is the warning of the current foreign run.
func (d *jvmTextDecoder) foreignWarning() *stack.ParseError {
	f := d.foreign.run
	pe := &stack.ParseError{Line: f.line, Offset: f.off, Text: string(f.text), Msg: foreignWhat[f.kind] + "; its lines are set aside"}
	if f.kind == foreignJavacore {
		pe.Msg = foreignWhat[f.kind] + "; its lines (threads from here on) are set aside"
	}
	return pe
}

// foreignOnly returns, at the end of an input that held no dump, the error
// naming the foreign form it held instead, or nil.
func (d *jvmTextDecoder) foreignOnly() error {
	if d.foreign.dumps > 0 || d.foreign.first == nil {
		return nil
	}
	pe := *d.foreign.first
	pe.Err = stack.ErrNotDump
	pe.Msg = fmt.Sprintf("%s; no thread dump in the input", pe.Msg)
	return &pe
}
