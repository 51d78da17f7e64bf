package formats

import (
	"errors"
	"fmt"
)

// errLineTooLong reports a line longer than ReadOptions.MaxLineBytes; the
// line was skipped and reading can go on (see lineReader).
var errLineTooLong = errors.New("line too long")

// ErrUnknownFormat is returned when the input matches no supported dump format.
var ErrUnknownFormat = errors.New("formats: unrecognised dump format")

// ParseError is a problem at a known place in the input. Readers report it
// and carry on with the next routine; the partial result is kept.
type ParseError struct {
	Line   int    // 1-based line number; 0 for binary inputs
	Offset int64  // byte offset of the line (or of the problem in binary inputs)
	Msg    string // what is wrong
	Text   string // the offending line, possibly shortened
}

func (e *ParseError) Error() string {
	text := e.Text
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	switch {
	case e.Line > 0 && text != "":
		return fmt.Sprintf("line %d: %s: %q", e.Line, e.Msg, text)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	default:
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
	}
}
