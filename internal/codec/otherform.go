package codec

import (
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// OtherFormError is returned by a text reader's NextDump when the input
// goes on with a dump of another text form (a debug=1 profile after a
// debug=2 dump, a Go dump after a JVM dump): the reader stops there and
// has pushed the lines of that dump back into the stream's lines,
// so that the reader of Kind, made over the same Stream, reads them (the
// door does so: formats.Reader reads every dump of a file whatever its
// form). Line names where the other dump starts.
type OtherFormError struct {
	Kind   stack.Kind
	Line   int
	Offset int64
}

func (e *OtherFormError) Error() string {
	return fmt.Sprintf("line %d: a %s dump starts here; this reader reads no further (the door, formats.NewReader, reads on)", e.Line, e.Kind)
}

// heldLines bounds what Held keeps.
const (
	heldLines = 32
	heldBytes = 8 << 10
)

// Held keeps copies of the last lines a reader skipped as junk, with their
// numbers and offsets: when a dump of another form starts after them, they
// may be its first lines (a JVM dump's time stamp, a Go crash's preamble)
// and are handed on with it (Lines.PushBack).
type Held struct {
	lines []Line
	size  int
}

// Add holds line; lines more than a few apart from the one held last
// start a new run (the lines between them were read as a dump's).
func (h *Held) Add(line []byte, num int, off int64) {
	if n := len(h.lines); n > 0 && num > h.lines[n-1].Num+3 {
		h.Reset()
	}
	if len(h.lines) == heldLines || h.size+len(line) > heldBytes {
		if len(h.lines) == 0 {
			return
		}
		h.size -= len(h.lines[0].Text)
		h.lines = append(h.lines[:0], h.lines[1:]...)
	}
	if len(line) > heldBytes {
		return
	}
	h.lines = append(h.lines, Line{Text: append([]byte(nil), line...), Num: num, Off: off})
	h.size += len(line)
}

// Reset forgets the lines held.
func (h *Held) Reset() { h.lines, h.size = h.lines[:0], 0 }

// Lines returns the lines held, oldest first.
func (h *Held) Lines() []Line { return h.lines }

// HandOver pushes the held lines and then line (the first line of the
// other form's dump, the line l returned last) back into l and returns
// the error that tells the reader's caller to read on with the reader of
// kind.
func (h *Held) HandOver(l *Lines, kind stack.Kind, line []byte) *OtherFormError {
	cur := l.Line()
	num, off := cur.Num, cur.Off
	back := append(h.lines, Line{Text: append([]byte(nil), line...), Num: num, Off: off})
	l.PushBack(back)
	h.lines, h.size = nil, 0
	return &OtherFormError{Kind: kind, Line: num, Offset: off}
}
