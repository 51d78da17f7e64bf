package codec

import (
	"bytes"

	"github.com/stackdump/stackdump/stack"
)

// Form says which lines belong to the dumps of one text form. Each text
// codec declares its own (gotext.Form, debug1.Form, jvm.Form); the door
// composes them (Forms) to sniff an input's format, the paste layer
// (internal/unpaste) learns a paste's frame from them, and a text reader
// stops where a dump of another form starts (OtherFormError).
type Form struct {
	Kind stack.Kind
	// Line reports whether line, its leading blanks trimmed, is a line
	// only a dump of this form has: a goroutine header, a debug=1
	// record, a JVM thread header or state line.
	Line func(line []byte) bool
	// Start reports whether a dump of this form starts at line, a line
	// at column 0: Line without the lines that only continue a dump.
	Start func(line []byte) bool
	// Find returns where a line Line matches starts inside line, after
	// text a paste or a logger put before it (a time stamp, a log
	// level, a quote mark, a fence): 1 or more; -1 when none does.
	Find func(line []byte) int
	// Block returns, for a line (trimmed) that starts a block of a dump
	// (a goroutine, a record, a thread), a test of the line that comes
	// right after it in a dump; nil for any other line. The paste layer
	// tells a paste whose lines come newest first by it.
	Block func(line []byte) (follows func(next []byte) bool)
}

// Forms are the text forms a reader tells apart, in the order they are
// asked.
type Forms []Form

// LineForm names the form whose Line matches line (its leading blanks
// skipped), or "".
func (fs Forms) LineForm(line []byte) stack.Kind {
	line = bytes.TrimLeft(line, " \t")
	for i := range fs {
		if fs[i].Line(line) {
			return fs[i].Kind
		}
	}
	return ""
}

// StartForm names the form whose dump starts at line, or "": lines at
// column 0 only.
func (fs Forms) StartForm(line []byte) stack.Kind {
	if len(line) == 0 || line[0] == ' ' || line[0] == '\t' {
		return ""
	}
	for i := range fs {
		if fs[i].Start(line) {
			return fs[i].Kind
		}
	}
	return ""
}

// FindForm looks for a line one of the forms has that does not start
// line but starts inside it, after a prefix a paste put there, and
// returns where it starts and its form; -1 and "" when there is none.
func (fs Forms) FindForm(line []byte) (int, stack.Kind) {
	if len(line) < 2 {
		return -1, ""
	}
	for i := range fs {
		if k := fs[i].Find(line); k > 0 {
			return k, fs[i].Kind
		}
	}
	return -1, ""
}

// BlockStart returns the Block test of the form whose block line starts,
// or nil.
func (fs Forms) BlockStart(line []byte) func(next []byte) bool {
	for i := range fs {
		if f := fs[i].Block(line); f != nil {
			return f
		}
	}
	return nil
}

// Others returns the forms but kind's.
func (fs Forms) Others(kind stack.Kind) Forms {
	var out Forms
	for _, f := range fs {
		if f.Kind != kind {
			out = append(out, f)
		}
	}
	return out
}

// Digits counts the leading ASCII digits of b.
func Digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}
