package stack

import (
	"errors"
	"fmt"
)

// The sentinel errors every format's reader and writer share, matched
// with errors.Is (the readers and writers wrap them with what they add);
// a reader's problems at a known place are ParseErrors (below).

// ErrOneDumpPerProfile is returned when a second dump is written to a
// pprof or folded output: a profile, and a flame graph's folded stacks,
// stand for one moment of one process, and summing two dumps would count
// every goroutine that lived through both twice. Each dump goes to an
// encoder of its own, or to one of a format that holds several (text,
// JSON).
var ErrOneDumpPerProfile = errors.New("stack: a pprof profile or folded stacks hold one dump")

// ErrNotDump is returned for an input whose format could not be told from
// its bytes and that is not a dump in the format guessed: random bytes,
// binary files that are not a pprof profile.
var ErrNotDump = errors.New("stack: not a goroutine or thread dump")

// ErrTooLarge is returned when an input exceeds a reader's size limit:
// a compressed input that inflates past it, or a document read whole
// (pprof, JSON) that is larger.
var ErrTooLarge = errors.New("stack: input exceeds the size limit")

// ErrNotGoroutineProfile is returned for a profile of something other
// than goroutines: a pprof profile of CPU or heap samples, or the text of
// another runtime/pprof profile (threadcreate, heap, block, mutex).
var ErrNotGoroutineProfile = errors.New("stack: not a goroutine profile")

// ErrUnknownFormat is returned when a reader is asked for a format
// (stack.Kind) no reader reads.
var ErrUnknownFormat = errors.New("stack: unknown dump format")

// ParseError is a problem at a known place in the input. Readers report it
// and carry on with the next routine; the partial result is kept. Match it
// with errors.As; errors.Is and errors.As see its cause, Err, through it.
type ParseError struct {
	Line   int    // 1-based line number; 0 for binary inputs
	Offset int64  // byte offset of the line (or of the problem in binary inputs)
	Msg    string // what is wrong; it includes Err's text when Err is set
	Text   string // the offending line, possibly shortened
	// Err is the error underneath the problem, nil when there is none:
	// the input's read error that cut a dump short, a value parser's
	// error (debug=1 labels and frames), a failed label lookup of a capture.
	Err error
}

// Unwrap returns the cause of the problem, Err.
func (e *ParseError) Unwrap() error { return e.Err }

// AsParseError returns the first *ParseError in err's tree, as errors.As
// finds it (through Unwrap() error and Unwrap() []error), and whether
// there is one. It spares a program that reads dumps the reflection
// errors.As links (the dumper counts its bytes).
func AsParseError(err error) (*ParseError, bool) {
	for err != nil {
		switch e := err.(type) {
		case *ParseError:
			return e, true
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		case interface{ Unwrap() []error }:
			for _, err := range e.Unwrap() {
				if pe, ok := AsParseError(err); ok {
					return pe, true
				}
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// Error renders the problem with where it is: the line (or byte offset
// of a binary input), the message and, on a line, the offending text
// shortened to 80 bytes.
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
