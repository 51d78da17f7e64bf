package dumpjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// jsonMaxDepth bounds the nesting of a JSON value: a stackdump document
// nests six levels deep, and the bound keeps hostile input from driving
// gjson's recursion.
const jsonMaxDepth = 64

// jsonScanner finds where one JSON value ends without decoding it: it
// tracks strings and bracket depth only, so it can be fed a stream in
// chunks. The zero value is ready to scan a value.
type jsonScanner struct {
	depth   int
	inStr   bool
	esc     bool
	scalar  bool // inside a number or literal at depth 0
	started bool
}

// scan consumes p. It returns the number of bytes that belong to the value
// and whether the value ended within p. Leading whitespace counts as part
// of the value; a number or literal at depth 0 ends before the first byte
// that cannot continue it, which is not consumed.
func (s *jsonScanner) scan(p []byte) (int, bool, error) {
	quoteAt := -1 // index of the next '"' in p at or after i, once searched
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.inStr {
			if s.esc {
				s.esc = false // c is the escaped byte
				continue
			}
			// Jump to the next quote unless an escape comes first. The
			// quote found is remembered, so strings full of escapes
			// are still scanned in linear time.
			if quoteAt < i {
				quoteAt = len(p)
				if q := bytes.IndexByte(p[i:], '"'); q >= 0 {
					quoteAt = i + q
				}
			}
			if bs := bytes.IndexByte(p[i:quoteAt], '\\'); bs >= 0 {
				i += bs
				s.esc = true
				continue
			}
			if quoteAt == len(p) {
				return len(p), false, nil
			}
			i = quoteAt
			s.inStr = false
			if s.depth == 0 {
				return i + 1, true, nil
			}
			continue
		}
		if s.scalar {
			if c <= ' ' || c == ',' || c == ']' || c == '}' {
				return i, true, nil
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			s.inStr, s.started = true, true
		case '{', '[':
			if s.depth++; s.depth > jsonMaxDepth {
				return i, false, errJSONTooDeep
			}
			s.started = true
		case '}', ']':
			if s.depth == 0 {
				return i, false, errJSONStray
			}
			if s.depth--; s.depth == 0 {
				return i + 1, true, nil
			}
		default:
			if s.depth == 0 {
				s.scalar, s.started = true, true
			}
		}
	}
	return len(p), false, nil
}

// atEOF reports whether the input may end where the scanner stands: only
// a number or literal at depth 0 ends at the end of input.
func (s *jsonScanner) atEOF() bool { return s.scalar }

// jsonStream reads the structure of JSON documents from a bufio.Reader:
// single bytes of punctuation and whole values, counting the offset of
// every byte it consumes.
type jsonStream struct {
	r   *bufio.Reader
	off int64 // offset of the next unread byte
}

// peekNonSpace skips whitespace and returns the next byte unread.
func (s *jsonStream) peekNonSpace() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r':
			s.r.Discard(1)
			s.off++
		default:
			return b[0], nil
		}
	}
}

// skipBOM discards a UTF-8 byte order mark.
func (s *jsonStream) skipBOM() {
	if b, _ := s.r.Peek(3); len(b) == 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		s.r.Discard(3)
		s.off += 3
	}
}

// skipByte consumes one byte already peeked.
func (s *jsonStream) skipByte() {
	s.r.Discard(1)
	s.off++
}

// readValue appends the next JSON value, leading whitespace included, to
// dst. A value longer than limit is skipped to its end and reported with
// errJSONValueSize; the end of input inside a value is
// io.ErrUnexpectedEOF.
func (s *jsonStream) readValue(dst []byte, limit int) ([]byte, error) {
	var sc jsonScanner
	start := len(dst)
	tooLong := false
	for {
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err != nil {
				if err == io.EOF {
					if sc.atEOF() {
						break
					}
					err = io.ErrUnexpectedEOF
				}
				return dst, err
			}
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		n, done, err := sc.scan(chunk)
		if !tooLong && len(dst)-start+n > limit {
			tooLong = true
			dst = dst[:start]
		}
		if !tooLong {
			dst = append(dst, chunk[:n]...)
		}
		s.r.Discard(n)
		s.off += int64(n)
		if err != nil {
			return dst, err
		}
		if done {
			break
		}
	}
	if tooLong {
		return dst, errJSONValueSize
	}
	return dst, nil
}

// The JSON value scanner's errors (json_scan.go).
var (
	errJSONTooDeep   = fmt.Errorf("JSON nested deeper than %d levels", jsonMaxDepth)
	errJSONStray     = errors.New("unexpected closing bracket")
	errJSONValueSize = errors.New("JSON value exceeds the size limit")
)
