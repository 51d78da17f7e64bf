package codec

import (
	"bufio"
	"bytes"
	"io"
)

// Line is one line of a text input as a reader gets it.
type Line struct {
	// Text is the line without its "\n" or "\r\n". It is valid until the
	// next line is read. For a line skipped by the overlong-line rule
	// (ErrLineTooLong) it is nil.
	Text []byte
	// Num is the line's number, from 1, and Off the byte offset of its
	// first byte in the input.
	Num int
	Off int64
	// NoEOL is set for the input's last line when it ends without "\n".
	NoEOL bool
	// Last is set by a paste layer (internal/unpaste) for the last line
	// of its paste region: only a line that closes the region, or blank
	// lines and then the end of the input, follow. A reader judges
	// whether such a line was cut as it judges an input's last line.
	Last bool
}

// LineReader cuts the lines of an input, as they are, one at a time: the
// one line source of the text readers (Go traceback, debug=1, JVM text),
// which read it through [Lines]. A line is returned without copying when
// it fits in the bufio.Reader's buffer; over an input held in memory
// (newMemLineReader) there is no bufio.Reader, and lines are slices of
// the input itself. Lines are numbered from 1 and know their byte offset;
// "\n" and "\r\n" are stripped.
//
// The overlong-line rule, the same for every text reader: a line longer
// than max bytes (ReadOptions.MaxLineBytes, without its terminator) is
// skipped — read to its end and dropped, never kept whole, so one huge
// line costs at most max bytes of memory — and ReadLine returns
// ErrLineTooLong with the Line naming it; TooLong says how long it was.
// A reader turns that into a positioned warning (Lines.TooLongError) and
// goes on with the next line: an overlong line never ends the parse.
//
// Its cursor is its own: a reader moves it by reading lines, or, for an
// accelerator that reads lines straight out of the buffered bytes
// (Window), by Advance.
type LineReader struct {
	r   *bufio.Reader // nil in memory
	max int
	// win is what r held buffered when it was last looked at, and pos
	// how much of it was returned. Lines are cut from win directly,
	// which spares a ReadSlice call per line; r is told (Discard) only
	// when win is used up.
	win []byte
	pos int
	// long collects a line that spans more than one buffer fill.
	long []byte

	line  []byte // the text of the line last returned; nil after a skip
	num   int    // its number
	off   int64  // its offset
	next  int64  // the offset of the next line
	noEOL bool   // it ended at EOF without '\n'
	// longLen and longHead are the length and first bytes of the line
	// last skipped by ErrLineTooLong.
	longLen  int64
	longHead []byte
	err      error // sticky read error (not io.EOF)
	// taken is set when Advance took the line last returned: line and
	// off are found when asked (settle).
	taken bool
	// onMove, when set, is called before the window of a reader over a
	// stream moves on (its bytes are then written over).
	onMove func()
}

// newLineReader returns a LineReader over r with lines bounded by max
// bytes (DefaultMaxLine when max <= 0).
func newLineReader(r *bufio.Reader, max int) *LineReader {
	lr := new(LineReader)
	lr.init(r, nil, max)
	return lr
}

// newMemLineReader returns a LineReader over b, an input held whole in
// memory; the lines it returns are slices of b.
func newMemLineReader(b []byte, max int) *LineReader {
	lr := new(LineReader)
	lr.init(nil, b, max)
	return lr
}

func (lr *LineReader) init(r *bufio.Reader, mem []byte, max int) {
	if max <= 0 {
		max = DefaultMaxLine
	}
	*lr = LineReader{r: r, win: mem, max: max}
}

// Max returns the longest line the reader returns, in bytes.
func (lr *LineReader) Max() int { return lr.max }

// Line returns the line last returned (or skipped, or the error's place).
func (lr *LineReader) Line() Line {
	if lr.taken {
		lr.settle()
	}
	return Line{Text: lr.line, Num: lr.num, Off: lr.off, NoEOL: lr.noEOL}
}

// Num returns the number of the line last returned: Line().Num, without
// finding the line when Advance took it.
func (lr *LineReader) Num() int { return lr.num }

// Offset returns the byte offset the next line starts at.
func (lr *LineReader) Offset() int64 { return lr.next }

// TooLong returns the length and first bytes of the line last skipped by
// the overlong-line rule.
func (lr *LineReader) TooLong() (length int64, head []byte) { return lr.longLen, lr.longHead }

// Held returns the whole input when lines are cut from it in memory
// (newMemLineReader): every line returned is a slice of it. It returns
// nil for a reader over a stream.
func (lr *LineReader) Held() []byte {
	if lr.r != nil {
		return nil
	}
	return lr.win
}

// Window returns the bytes buffered beyond the cursor and where the next
// line starts in them: lines[pos:] is the input from the next line on,
// as far as it is buffered (the rest of the input, in memory). An
// accelerator may read whole lines from there and take them with
// Advance, or read no further than the last '\n' in it. lines is valid
// until the next read (see SetOnMove).
func (lr *LineReader) Window() (lines []byte, pos int) { return lr.win, lr.pos }

// Advance takes n bytes of the window, which hold count whole lines each
// ended by "\n" (as a reader read them out of Window), as count calls of
// ReadLine would: the last of them is then the line last returned. It
// is cheap: where the last of several lines starts is found only when
// asked (Line).
func (lr *LineReader) Advance(n, count int) {
	if count == 1 {
		lr.off, lr.taken = lr.next, false
		lr.line = lr.win[lr.pos : lr.pos+n-1]
	} else {
		lr.taken = true
	}
	lr.pos += n
	lr.next += int64(n)
	lr.num += count
	lr.noEOL = false
}

// settle finds the line last taken by Advance: it ends at win[pos-1], and
// starts after the '\n' before it (every line before pos in the window
// ends with one) or at the window's start.
func (lr *LineReader) settle() {
	end := lr.pos - 1
	start := bytes.LastIndexByte(lr.win[:end], '\n') + 1
	lr.line = trimEOL(lr.win[start:end])
	lr.off = lr.next - int64(lr.pos-start)
	lr.taken = false
}

// SetOnMove makes lr call f before the window of a reader over a stream
// moves on (its bytes are then written over): a reader that keeps views
// of the window copies what it still needs. Nil calls nothing.
func (lr *LineReader) SetOnMove(f func()) { lr.onMove = f }

// ReadLine returns the next line. At the end of the input it returns
// io.EOF (a last line without a newline is returned first, NoEOL set). A
// line longer than Max is skipped and ErrLineTooLong returned with the
// Line naming it; other errors come from the underlying reader and stay:
// every later call returns them again.
func (lr *LineReader) ReadLine() (Line, error) {
	text, err := lr.readText()
	return Line{Text: text, Num: lr.num, Off: lr.off, NoEOL: lr.noEOL}, err
}

// readText is ReadLine returning the line's text only; the cursor says
// the rest.
func (lr *LineReader) readText() ([]byte, error) {
	lr.off, lr.taken = lr.next, false
	if i := bytes.IndexByte(lr.win[lr.pos:], '\n'); i >= 0 {
		line := lr.win[lr.pos : lr.pos+i+1]
		lr.pos += i + 1
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
	if lr.onMove != nil {
		lr.onMove()
	}
	lr.r.Discard(lr.pos)
	lr.win, lr.pos = nil, 0
	line, err := lr.r.ReadSlice('\n')
	if err == nil {
		lr.win, _ = lr.r.Peek(lr.r.Buffered())
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
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = true
	if err != io.EOF {
		return nil, err
	}
	return lr.kept(trimEOL(line))
}

// memTail returns the last line of an input in memory, one without a
// "\n", or io.EOF when there is none.
func (lr *LineReader) memTail() ([]byte, error) {
	line := lr.win[lr.pos:]
	if len(line) == 0 {
		return nil, io.EOF
	}
	lr.pos = len(lr.win)
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = true
	return lr.kept(trimEOL(line))
}

// whole returns line, a whole line with its "\n", without its terminator.
func (lr *LineReader) whole(line []byte) ([]byte, error) {
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = false
	return lr.kept(trimEOL(line))
}

// kept returns line, the current line without its terminator, as the line
// read, or skips it by the overlong-line rule.
func (lr *LineReader) kept(line []byte) ([]byte, error) {
	if len(line) > lr.max {
		lr.longLen = int64(len(line))
		lr.longHead = append(lr.longHead[:0], line[:min(len(line), longHeadBytes)]...)
		lr.line = nil
		return nil, ErrLineTooLong
	}
	lr.line = line
	return line, nil
}

// longHeadBytes is how much of a skipped line its warning quotes.
const longHeadBytes = 80

// readLong assembles a line longer than the bufio buffer into lr.long, or
// skips it once it passes max.
func (lr *LineReader) readLong(first []byte) ([]byte, error) {
	lr.num++
	lr.longHead = append(lr.longHead[:0], first[:min(len(first), longHeadBytes)]...)
	lr.long = append(lr.long[:0], first...)
	n := int64(len(first))
	tooLong := len(first) > lr.max
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(lr.long)+len(chunk) > lr.max+2 { // +2: the terminator is not counted
				tooLong = true
				lr.long = lr.long[:0]
			} else {
				lr.long = append(lr.long, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		lr.next += n
		lr.noEOL = err != nil
		if err != nil && err != io.EOF {
			lr.err = err
			return nil, err
		}
		line := trimEOL(lr.long)
		if tooLong || len(line) > lr.max {
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
