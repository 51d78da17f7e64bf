package codec

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// LineReader is the one line reader of the text readers (Go traceback,
// debug=1, JVM text). It yields the lines of a stream one at a time
// without copying them when they fit in the bufio.Reader's buffer, numbers
// them from 1 and keeps each line's byte offset; "\n" and "\r\n" are
// stripped. Over an input held in memory (newMemLineReader) there is no
// bufio.Reader: lines are cut from the input itself.
//
// The overlong-line rule, the same for every text reader: a line longer
// than max bytes (ReadOptions.MaxLineBytes, without its terminator) is
// skipped — read to its end and dropped, never kept whole, so one huge
// line costs at most max bytes of memory — and readLine returns
// errLineTooLong with num and off naming it. The reader turns that into a
// positioned warning (tooLongError: line number, byte offset, the line's
// length and first bytes) and reading goes on with the next line; an
// overlong line never ends the parse.
//
// The line last returned may be pushed back once with unread, so that a
// state machine can end a record at the first line that is not its own.
type LineReader struct {
	r   *bufio.Reader // nil in memory
	Max int
	// win is what r held buffered when it was last looked at, and pos how
	// much of it was returned. Lines are cut from win directly, which
	// spares a ReadSlice call per line; r is told (Discard) only when
	// win is used up.
	Win []byte
	Pos int
	// long collects a line that spans more than one buffer fill.
	long []byte

	Num     int   // 1-based number of the line last returned
	Off     int64 // byte offset of the line last returned
	NextOff int64 // byte offset of the next line
	// noEOL is set when the line last returned ended at EOF without '\n'.
	NoEOL bool
	// longLen and longHead are the length and first bytes of the line last
	// skipped by errLineTooLong.
	longLen  int64
	LongHead []byte

	line []byte // the line last returned by readLine; nil after a skip
	back bool   // unread: the next readLine returns line again
	err  error  // sticky read error (not io.EOF)

	// special is set when ReadLine has more to do than read the next
	// line: a line was unread or pushed back, or a frame is set aside.
	special bool
	// frame, when set, reads the lines through the paste frame set aside
	// (SetFrame); lineBuf holds the line last returned then.
	frame   framedLines
	lineBuf []byte
	// pushed holds lines pushed back (PushBack), returned before any other.
	pushed []HeldLine
	// OnMove, when set, is called before the window of a reader over a
	// stream moves on (its bytes are then written over): a reader that
	// keeps views of Win copies what it still needs.
	OnMove func()
	// Last is set when the line last returned is the last of its paste
	// region: the input ends after it (NoEOL, or only blank lines
	// follow), or a frame line closing the region does. A reader judges
	// whether such a line was cut as it judges an input's last line.
	Last bool
}

// NewLineReader returns a lineReader over r with lines bounded by max
// bytes (defaultMaxLine when max <= 0).
func NewLineReader(r *bufio.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{r: r, Max: max}
}

// newMemLineReader returns a lineReader over b, an input held whole in
// memory; the lines it returns are slices of b.
func newMemLineReader(b []byte, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{Win: b, Max: max}
}

// NewStreamLineReader returns a lineReader over in: over its bytes when it
// is held in memory, else over in.R. It reads the lines as they are; see
// NewFramedLineReader for an input a person may have pasted.
func NewStreamLineReader(in *Stream, max int) *LineReader {
	if in.lines != nil {
		return in.lines // a reader handed the stream on
	}
	var lr *LineReader
	if in.Mem != nil {
		lr = newMemLineReader(in.Mem, max)
	} else {
		lr = NewLineReader(in.R, max)
	}
	in.lines = lr
	return lr
}

// NewFramedLineReader is NewStreamLineReader for an input a person may
// have pasted: it sets aside the paste frame of the input
// (Stream.PasteFrame). A program that only reads what the runtime wrote
// (the dumper) uses NewStreamLineReader and links none of the frame's
// code.
func NewFramedLineReader(in *Stream, max int) *LineReader {
	if in.lines != nil {
		return in.lines // a reader handed the stream on
	}
	lr := NewStreamLineReader(in, max)
	lr.SetFrame(in.PasteFrame())
	return lr
}

// Held returns the whole input when lines are cut from it in memory
// (newMemLineReader): every line returned is a slice of it, and Win is it.
// It returns nil for a reader over a stream.
func (lr *LineReader) Held() []byte {
	if lr.r != nil {
		return nil
	}
	return lr.Win
}

// ReadLine returns the next line without its "\n" or "\r\n". The slice is
// valid until the next call. At the end of the input it returns io.EOF (a
// last line without a newline is returned first, with noEOL set). A line
// longer than max is skipped and errLineTooLong returned with num and off
// naming it; other errors come from the underlying reader and stay: every
// later call returns them again.
func (lr *LineReader) ReadLine() ([]byte, error) {
	if lr.special {
		return lr.readSpecial()
	}
	lr.Off = lr.NextOff
	if i := bytes.IndexByte(lr.Win[lr.Pos:], '\n'); i >= 0 {
		line := lr.Win[lr.Pos : lr.Pos+i+1]
		lr.Pos += i + 1
		return lr.whole(line)
	}
	if lr.r == nil {
		return lr.memTail()
	}
	if lr.err != nil {
		return nil, lr.err
	}
	// The window holds no whole line: hand it back, let ReadSlice find
	// the line (reading more), then look at what is buffered again.
	if lr.OnMove != nil {
		lr.OnMove()
	}
	lr.r.Discard(lr.Pos)
	lr.Win, lr.Pos = nil, 0
	line, err := lr.r.ReadSlice('\n')
	if err == nil {
		lr.Win, _ = lr.r.Peek(lr.r.Buffered())
		return lr.whole(line)
	}
	if err == bufio.ErrBufferFull {
		return lr.readLong(line)
	}
	// EOF or a read error, possibly with a last partial line.
	if err != io.EOF {
		lr.err = err
	}
	if len(line) == 0 {
		return nil, err
	}
	lr.Num++
	lr.NextOff += int64(len(line))
	lr.NoEOL = true
	if err != io.EOF {
		return nil, err
	}
	return lr.kept(trimEOL(line))
}

// memTail returns the last line of an input in memory, one without a
// "\n", or io.EOF when there is none.
func (lr *LineReader) memTail() ([]byte, error) {
	line := lr.Win[lr.Pos:]
	if len(line) == 0 {
		return nil, io.EOF
	}
	lr.Pos = len(lr.Win)
	lr.Num++
	lr.NextOff += int64(len(line))
	lr.NoEOL = true
	return lr.kept(trimEOL(line))
}

// SkipLine consumes the next line when it is text, whole in the buffered
// window and ended by "\n", exactly as readLine would have returned it;
// it reports whether it did. text must hold no line terminator.
func (lr *LineReader) SkipLine(text string) bool {
	if lr.special {
		return false
	}
	end := lr.Pos + len(text)
	if end >= len(lr.Win) || lr.Win[end] != '\n' || len(text) > lr.Max ||
		len(text) > 0 && text[len(text)-1] == '\r' || string(lr.Win[lr.Pos:end]) != text {
		return false
	}
	lr.Off = lr.NextOff
	lr.Pos = end + 1
	lr.Num++
	lr.NextOff += int64(len(text) + 1)
	lr.NoEOL = false
	return true
}

// PeekLine returns the next line, without its "\n", when it is whole in
// the buffered window and ReadLine would return it from there as it is:
// ended by "\n" (not "\r\n"), no longer than Max, with nothing unread,
// pushed back or set aside by a paste frame before it; nil otherwise.
// TakeLine then consumes it.
func (lr *LineReader) PeekLine() []byte {
	if lr.special {
		return nil
	}
	w := lr.Win[lr.Pos:]
	k := bytes.IndexByte(w, '\n')
	if k <= 0 || k > lr.Max || w[k-1] == '\r' {
		return nil
	}
	return w[:k]
}

// TakeLine consumes line, the line PeekLine returned, as ReadLine would
// have returned it.
func (lr *LineReader) TakeLine(line []byte) {
	lr.Off = lr.NextOff
	lr.Pos += len(line) + 1
	lr.Num++
	lr.NextOff += int64(len(line) + 1)
	lr.NoEOL = false
	lr.line = line
}

// whole returns line, a whole line with its "\n", without its terminator.
func (lr *LineReader) whole(line []byte) ([]byte, error) {
	lr.Num++
	lr.NextOff += int64(len(line))
	lr.NoEOL = false
	return lr.kept(trimEOL(line))
}

// kept returns line, the current line without its terminator, as the line
// read, or skips it by the overlong-line rule.
func (lr *LineReader) kept(line []byte) ([]byte, error) {
	if len(line) > lr.Max {
		lr.longLen = int64(len(line))
		lr.LongHead = append(lr.LongHead[:0], line[:min(len(line), longHeadBytes)]...)
		lr.line = nil
		return nil, ErrLineTooLong
	}
	lr.line = line
	return line, nil
}

// longHeadBytes is how much of a skipped line its warning quotes.
const longHeadBytes = 80

// Unread pushes the line last returned by readLine back: the next
// ReadLine returns it again, with the same num and off.
func (lr *LineReader) Unread() { lr.back, lr.special = true, true }

// readSpecial is ReadLine when a line was unread or pushed back, or a
// paste frame is set aside: the plain path of ReadLine stays free of it.
func (lr *LineReader) readSpecial() ([]byte, error) {
	if lr.back {
		lr.back = false
		lr.special = lr.frame != nil || len(lr.pushed) > 0
		return lr.line, nil
	}
	if len(lr.pushed) > 0 {
		h := lr.pushed[0]
		lr.pushed = lr.pushed[1:]
		lr.special = lr.frame != nil || len(lr.pushed) > 0
		lr.Num, lr.Off, lr.NoEOL, lr.Last = h.Num, h.Off, false, false
		lr.line = h.Text
		return h.Text, nil
	}
	if lr.frame != nil {
		return lr.frame.read(lr)
	}
	lr.special = false
	return lr.ReadLine()
}

// readRaw reads the input's next line as it is, whatever is set aside.
func (lr *LineReader) readRaw() ([]byte, error) {
	special := lr.special
	lr.special = false
	line, err := lr.ReadLine()
	lr.special = special
	return line, err
}

// PushBack makes the next ReadLine calls return lines, in order, with
// their numbers and offsets, before reading on: a reader hands the lines
// of a dump of another form on to that form's reader (Held.HandOver).
func (lr *LineReader) PushBack(lines []HeldLine) {
	lr.back = false
	lr.pushed = append(lines, lr.pushed...)
	lr.special = true
}

// TooLongMsg says what happened to the line last skipped by errLineTooLong.
func (lr *LineReader) TooLongMsg() string {
	return "line of " + strconv.FormatInt(lr.longLen, 10) + " bytes is longer than the " +
		strconv.Itoa(lr.Max) + "-byte limit; skipped"
}

// TooLongError is the positioned warning for the line last skipped by
// errLineTooLong: its number, offset, length and first bytes.
func (lr *LineReader) TooLongError() *stack.ParseError {
	return &stack.ParseError{Line: lr.Num, Offset: lr.Off, Msg: lr.TooLongMsg(), Text: string(lr.LongHead)}
}

// ParseError returns a ParseError about the line last returned by
// ReadLine, quoting up to 200 bytes of it.
func (lr *LineReader) ParseError(msg string) *stack.ParseError {
	return &stack.ParseError{Line: lr.Num, Offset: lr.Off, Msg: msg, Text: string(lr.line[:min(len(lr.line), 200)])}
}

// readLong assembles a line longer than the bufio buffer into lr.long, or
// skips it once it passes max.
func (lr *LineReader) readLong(first []byte) ([]byte, error) {
	lr.Num++
	lr.LongHead = append(lr.LongHead[:0], first[:min(len(first), longHeadBytes)]...)
	lr.long = append(lr.long[:0], first...)
	n := int64(len(first))
	tooLong := len(first) > lr.Max
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(lr.long)+len(chunk) > lr.Max+2 { // +2: the terminator is not counted
				tooLong = true
				lr.long = lr.long[:0]
			} else {
				lr.long = append(lr.long, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		lr.NextOff += n
		lr.NoEOL = err != nil
		if err != nil && err != io.EOF {
			lr.err = err
			return nil, err
		}
		line := trimEOL(lr.long)
		if tooLong || len(line) > lr.Max {
			lr.longLen = n
			lr.line = nil
			if cap(lr.long) > 4*lr.r.Size() {
				lr.long = nil // do not keep a huge buffer for one odd line
			}
			return nil, ErrLineTooLong
		}
		lr.line = line
		return line, nil
	}
}

// trimEOL removes a trailing "\n" and then a trailing "\r".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
