package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader yields the lines of a stream one at a time without copying
// them when they fit in the bufio.Reader's buffer. It has no fixed line cap
// other than max: a longer line is skipped (read and dropped without being
// kept) and reported with errLineTooLong, so memory stays bounded. Over an
// input held in memory (newMemLineReader) there is no bufio.Reader: lines
// are cut from the input itself.
type lineReader struct {
	r   *bufio.Reader // nil in memory
	max int
	// win is what r held buffered when it was last looked at, and pos how
	// much of it was returned. Lines are cut from win directly, which
	// spares a ReadSlice call per line; r is told (Discard) only when
	// win is used up.
	win []byte
	pos int
	// long collects a line that spans more than one buffer fill.
	long []byte

	num  int   // 1-based number of the line last returned
	off  int64 // byte offset of the line last returned
	next int64 // byte offset of the next line
	// noEOL is set when the line last returned ended at EOF without '\n'.
	noEOL bool
	// longLen and longHead are the length and first bytes of the line last
	// skipped by errLineTooLong.
	longLen  int64
	longHead []byte
}

// errLineTooLong reports a line longer than the reader's max; the line was
// skipped and reading can go on.
var errLineTooLong = errors.New("line too long")

func newLineReader(r *bufio.Reader, max int) *lineReader {
	if max <= 0 {
		max = defaultMaxLine
	}
	return &lineReader{r: r, max: max}
}

// newMemLineReader returns a lineReader over b, an input held whole in
// memory; the lines it returns are slices of b.
func newMemLineReader(b []byte, max int) *lineReader {
	if max <= 0 {
		max = defaultMaxLine
	}
	return &lineReader{win: b, max: max}
}

// newInputLineReader returns a lineReader over in: over its bytes when it
// is held in memory, else over in.R.
func newInputLineReader(in *Input, max int) *lineReader {
	if in.mem != nil {
		return newMemLineReader(in.mem, max)
	}
	return newLineReader(in.R, max)
}

// readLine returns the next line without its "\n" or "\r\n". The slice is
// valid until the next call. At the end of the input it returns io.EOF (a
// last line without a newline is returned first, with noEOL set). A line
// longer than max is skipped and errLineTooLong returned with num and off
// naming it; other errors come from the underlying reader.
func (lr *lineReader) readLine() ([]byte, error) {
	lr.off = lr.next
	if i := bytes.IndexByte(lr.win[lr.pos:], '\n'); i >= 0 {
		line := lr.win[lr.pos : lr.pos+i+1]
		lr.pos += i + 1
		return lr.whole(line)
	}
	if lr.r == nil {
		return lr.memTail()
	}
	// The window holds no whole line: hand it back, let ReadSlice find
	// the line (reading more), then look at what is buffered again.
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
	if len(line) == 0 {
		return nil, err
	}
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = true
	if err != io.EOF {
		return nil, err
	}
	line = trimEOL(line)
	if len(line) > lr.max {
		lr.skipped(line, int64(len(line)))
		return nil, errLineTooLong
	}
	return line, nil
}

// memTail returns the last line of an input in memory, one without a
// "\n", or io.EOF when there is none.
func (lr *lineReader) memTail() ([]byte, error) {
	line := lr.win[lr.pos:]
	if len(line) == 0 {
		return nil, io.EOF
	}
	lr.pos = len(lr.win)
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = true
	line = trimEOL(line)
	if len(line) > lr.max {
		lr.skipped(line, int64(len(line)))
		return nil, errLineTooLong
	}
	return line, nil
}

// skipLine consumes the next line when it is text, whole in the buffered
// window and ended by "\n", exactly as readLine would have returned it;
// it reports whether it did. text must hold no line terminator.
func (lr *lineReader) skipLine(text string) bool {
	end := lr.pos + len(text)
	if end >= len(lr.win) || lr.win[end] != '\n' || len(text) > lr.max ||
		len(text) > 0 && text[len(text)-1] == '\r' || string(lr.win[lr.pos:end]) != text {
		return false
	}
	lr.off = lr.next
	lr.pos = end + 1
	lr.num++
	lr.next += int64(len(text) + 1)
	lr.noEOL = false
	return true
}

// whole returns line, a whole line with its "\n", without its terminator.
func (lr *lineReader) whole(line []byte) ([]byte, error) {
	lr.num++
	lr.next += int64(len(line))
	lr.noEOL = false
	line = trimEOL(line)
	if len(line) > lr.max {
		lr.skipped(line, int64(len(line)))
		return nil, errLineTooLong
	}
	return line, nil
}

// skipped records the length and head of a line dropped for its length.
func (lr *lineReader) skipped(head []byte, n int64) {
	lr.longLen = n
	lr.longHead = append(lr.longHead[:0], head[:min(len(head), 80)]...)
}

// readLong assembles a line longer than the bufio buffer into lr.long, or
// skips it once it passes max.
func (lr *lineReader) readLong(first []byte) ([]byte, error) {
	lr.num++
	lr.longHead = append(lr.longHead[:0], first[:min(len(first), 80)]...)
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
			return nil, err
		}
		line := trimEOL(lr.long)
		if tooLong || len(line) > lr.max {
			lr.longLen = n
			lr.longHead = lr.longHead[:min(len(lr.longHead), 80)]
			if cap(lr.long) > 4*lr.r.Size() {
				lr.long = nil // do not keep a huge buffer for one odd line
			}
			return nil, errLineTooLong
		}
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
