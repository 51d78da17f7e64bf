package formats

import (
	"bufio"
	"errors"
	"io"
)

// jvmLineReader splits a stream into lines without copying them: the slice
// it returns is valid until the next call. It strips "\n" and "\r\n",
// numbers lines from 1, keeps the byte offset of each line start, and lets
// the caller push the last line back once. A line longer than max is
// skipped and reported as a *ParseError, so one huge line never ends the
// parse or exhausts memory.
type jvmLineReader struct {
	r    *bufio.Reader
	max  int
	line []byte // current line, without its terminator
	num  int    // 1-based number of the current line
	off  int64  // offset of the current line's first byte
	next int64  // offset of the byte after the current line
	back bool   // the current line was pushed back
	long []byte // scratch for lines longer than r's buffer
	// noEOL is set when the current line ended at EOF without "\n".
	noEOL bool
}

func newJVMLineReader(r *bufio.Reader, max int) jvmLineReader {
	if max <= 0 {
		max = defaultMaxLine
	}
	return jvmLineReader{r: r, max: max}
}

// read returns the next line, io.EOF at the end, a *ParseError for a line
// over the limit (which is skipped), or the underlying read error.
func (lr *jvmLineReader) read() ([]byte, error) {
	if lr.back {
		lr.back = false
		return lr.line, nil
	}
	raw, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return lr.readLong(raw)
	}
	if len(raw) == 0 && err != nil {
		lr.line = nil
		return nil, err
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	lr.start(len(raw))
	lr.noEOL = err == io.EOF
	lr.line = jvmTrimEOL(raw)
	if len(lr.line) > lr.max {
		text := lr.line[:min(len(lr.line), 80)]
		lr.line = nil
		return nil, &ParseError{Line: lr.num, Offset: lr.off, Msg: "line longer than the line limit skipped", Text: string(text)}
	}
	return lr.line, nil
}

// readLong gathers a line that does not fit in the bufio buffer, up to max
// bytes; past it the rest of the line is discarded and reported.
func (lr *jvmLineReader) readLong(first []byte) ([]byte, error) {
	buf := append(lr.long[:0], first...)
	n := len(first)
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			if len(buf)+len(chunk) > lr.max {
				tooLong = true
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		lr.noEOL = err == io.EOF
		break
	}
	lr.long = buf[:0]
	lr.start(n)
	if tooLong {
		lr.line = nil
		return nil, &ParseError{Line: lr.num, Offset: lr.off, Msg: "line longer than the line limit skipped", Text: string(buf[:min(len(buf), 80)])}
	}
	lr.long = buf
	lr.line = jvmTrimEOL(buf)
	return lr.line, nil
}

func (lr *jvmLineReader) start(n int) {
	lr.num++
	lr.off = lr.next
	lr.next += int64(n)
}

// unread pushes the current line back; the next read returns it again.
func (lr *jvmLineReader) unread() { lr.back = true }

// errorf returns a *ParseError about the current line.
func (lr *jvmLineReader) errorf(msg string) *ParseError {
	return &ParseError{Line: lr.num, Offset: lr.off, Msg: msg, Text: string(lr.line[:min(len(lr.line), 200)])}
}

func jvmTrimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
