package codec

import (
	"bufio"
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// Lines are the lines a text reader reads: its input's, cut by a
// [LineReader], or a [Layer]'s over that reader, which changes them (the
// paste layer, internal/unpaste, sets a paste's frame aside). A line
// pushed back (Unread) and lines handed over from another form's reader
// (PushBack) come first. The plain case, lines as the input has them, is
// one call to the LineReader per line.
type Lines struct {
	raw   LineReader
	layer Layer
	// special is set when Read has more to do than read raw's next line:
	// a line was unread or pushed back, or a layer reads the lines.
	special bool
	back    bool   // Unread: the next Read returns cur again
	pushed  []Line // PushBack: returned before any other
	// cur is the line last returned when own is set: one of a layer or
	// pushed back. Otherwise raw's cursor says which line it was.
	cur Line
	own bool
}

// A Layer reads the lines of an input through its LineReader and hands
// them on changed: lines set aside, lines stripped, lines in another
// order. Its ReadLine returns a line as LineReader.ReadLine does, or one
// of the errors a layer adds (ErrRegionEnd, ErrGap) with the Line naming
// where.
type Layer interface {
	ReadLine() (Line, error)
	// TooLong returns the length and first bytes of the line last
	// returned with ErrLineTooLong.
	TooLong() (length int64, head []byte)
	// Note returns what a reader should warn of the input as a whole
	// with its first dump (a paste read in another order), or "".
	Note() string
}

// NewLines returns the lines of in as they are: over its bytes when it is
// held in memory, else over in.R. The lines are the stream's: a reader
// that hands the stream on to the reader of another form
// (OtherFormError) hands them on too, and NewLines returns them again.
// internal/unpaste's NewLines sets a paste's frame aside.
func NewLines(in *Stream, max int) *Lines {
	if in.lines != nil {
		return in.lines // a reader handed the stream on
	}
	l := new(Lines)
	if in.Mem != nil {
		l.raw.init(nil, in.Mem, max)
	} else {
		l.raw.init(in.R, nil, max)
	}
	in.lines = l
	return l
}

// newLines returns the lines cut from r, or from mem when r is nil.
func newLines(r *bufio.Reader, mem []byte, max int) *Lines {
	l := new(Lines)
	l.raw.init(r, mem, max)
	return l
}

// Wrap makes the lines those of the layer wrap returns over l's
// LineReader, from the next line on.
func (l *Lines) Wrap(wrap func(raw *LineReader) Layer) {
	l.layer = wrap(&l.raw)
	l.special = true
}

// Layered reports whether a layer reads the lines: they are then not
// the input's bytes (Window returns nothing).
func (l *Lines) Layered() bool { return l.layer != nil }

// Note returns what the layer, if any, says of the input as a whole (see
// Layer).
func (l *Lines) Note() string {
	if l.layer == nil {
		return ""
	}
	return l.layer.Note()
}

// Read returns the next line; see LineReader.ReadLine and Layer.
func (l *Lines) Read() (Line, error) {
	if l.special {
		return l.readSpecial()
	}
	l.own = false
	return l.raw.ReadLine()
}

// readSpecial is Read when a line was unread or pushed back, or a layer
// reads the lines: Read's plain path stays free of it.
func (l *Lines) readSpecial() (Line, error) {
	if l.back {
		l.back = false
		l.cur, l.own = l.Line(), true
		l.special = l.layer != nil || len(l.pushed) > 0
		return l.cur, nil
	}
	if len(l.pushed) > 0 {
		l.cur, l.own = l.pushed[0], true
		l.pushed = l.pushed[1:]
		l.special = l.layer != nil || len(l.pushed) > 0
		return l.cur, nil
	}
	if l.layer != nil {
		ln, err := l.layer.ReadLine()
		l.cur, l.own = ln, true
		return ln, err
	}
	l.special = false
	return l.Read()
}

// Line returns the line last returned, or the place of the error last
// returned.
func (l *Lines) Line() Line {
	if l.own {
		return l.cur
	}
	return l.raw.Line()
}

// Num returns the number of the line last returned, as Line().Num does.
func (l *Lines) Num() int {
	if l.own {
		return l.cur.Num
	}
	return l.raw.Num()
}

// Unread pushes the line last returned back: the next Read returns it
// again, with the same number and offset.
func (l *Lines) Unread() { l.back, l.special = true, true }

// PushBack makes the next Read calls return lines, in order, with their
// numbers and offsets, before reading on: a reader hands the lines of a
// dump of another form on to that form's reader (Held.HandOver).
func (l *Lines) PushBack(lines []Line) {
	l.back = false
	l.pushed = append(lines, l.pushed...)
	l.special = true
}

// Max returns the longest line returned, in bytes.
func (l *Lines) Max() int { return l.raw.max }

// Held returns the whole input when the lines are cut from it in memory
// and are the input's own (no layer): every line is then a slice of it.
// It returns nil otherwise.
func (l *Lines) Held() []byte {
	if l.layer != nil {
		return nil
	}
	return l.raw.Held()
}

// Window returns LineReader.Window when the next lines are the input's
// own (nothing unread or pushed back, no layer); nil otherwise.
func (l *Lines) Window() (lines []byte, pos int) {
	if l.special {
		return nil, 0
	}
	return l.raw.Window()
}

// Advance takes n bytes holding count lines of the Window, as
// LineReader.Advance does.
func (l *Lines) Advance(n, count int) {
	l.own = false
	l.raw.Advance(n, count)
}

// SetOnMove is LineReader.SetOnMove.
func (l *Lines) SetOnMove(f func()) { l.raw.SetOnMove(f) }

// TooLong returns the length and first bytes of the line last skipped by
// the overlong-line rule.
func (l *Lines) TooLong() (length int64, head []byte) {
	if l.own && l.layer != nil {
		return l.layer.TooLong()
	}
	return l.raw.TooLong()
}

// TooLongMsg says what happened to the line last skipped by
// ErrLineTooLong.
func (l *Lines) TooLongMsg() string {
	n, _ := l.TooLong()
	return "line of " + strconv.FormatInt(n, 10) + " bytes is longer than the " +
		strconv.Itoa(l.Max()) + "-byte limit; skipped"
}

// TooLongError is the positioned warning for the line last skipped by
// ErrLineTooLong: its number, offset, length and first bytes.
func (l *Lines) TooLongError() *stack.ParseError {
	_, head := l.TooLong()
	ln := l.Line()
	return &stack.ParseError{Line: ln.Num, Offset: ln.Off, Msg: l.TooLongMsg(), Text: string(head)}
}

// ParseError returns a ParseError about the line last returned, quoting
// up to 200 bytes of it.
func (l *Lines) ParseError(msg string) *stack.ParseError {
	ln := l.Line()
	return &stack.ParseError{Line: ln.Num, Offset: ln.Off, Msg: msg, Text: string(ln.Text[:min(len(ln.Text), 200)])}
}
