package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// debug1Lines reads a text input one line at a time with the line's number
// and byte offset, without a fixed line-length cap of its own: lines longer
// than max are cut to max bytes and flagged, so one huge line costs at most
// max bytes of memory and never ends the parse.
//
// A line may be pushed back once with unread, so that a state machine can
// end a record at the first line that does not belong to it.
type debug1Lines struct {
	r   *bufio.Reader
	max int

	line    []byte // current line, without "\n" or "\r\n"; valid until the next scan
	num     int    // 1-based number of the current line
	off     int64  // byte offset of the current line
	tooLong bool   // the current line was longer than max and was cut

	next   int64  // byte offset of the line after the current one
	long   []byte // buffer for lines that span bufio.Reader's buffer
	unread bool
	err    error // sticky read error; io.EOF at the end
}

func newDebug1Lines(r *bufio.Reader, max int) *debug1Lines {
	if max <= 0 {
		max = defaultMaxLine
	}
	return &debug1Lines{r: r, max: max}
}

// scan advances to the next line. It returns false at the end of the input
// or on a read error; err then tells which (io.EOF at a clean end).
func (l *debug1Lines) scan() bool {
	if l.unread {
		l.unread = false
		return true
	}
	if l.err != nil {
		return false
	}
	l.num++
	l.off = l.next
	l.tooLong = false
	l.long = l.long[:0]
	first := true
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.next += int64(len(chunk))
		switch {
		case first && err == nil && len(chunk) <= l.max:
			// The common case: the whole line sits in the reader's buffer.
			l.line = chunk
		case len(l.long)+len(chunk) <= l.max:
			l.long = append(l.long, chunk...)
			l.line = l.long
		default:
			l.long = append(l.long, chunk[:l.max-len(l.long)]...)
			l.line = l.long
			l.tooLong = true
		}
		first = false
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			l.err = err
			if len(l.line) == 0 {
				l.num--
				return false
			}
		}
		break
	}
	l.line = bytes.TrimSuffix(l.line, []byte("\n"))
	l.line = bytes.TrimSuffix(l.line, []byte("\r"))
	return true
}

// unreadLine makes the next scan return the current line again.
func (l *debug1Lines) unreadLine() { l.unread = true }

// readErr returns the error that ended scanning, nil at a clean end.
func (l *debug1Lines) readErr() error {
	if l.err == io.EOF {
		return nil
	}
	return l.err
}

// parseError returns a ParseError about the current line.
func (l *debug1Lines) parseError(msg string) *ParseError {
	text := l.line
	if len(text) > 200 {
		text = text[:200]
	}
	return &ParseError{Line: l.num, Offset: l.off, Msg: msg, Text: string(text)}
}
