package codec

import (
	"github.com/stackdump/stackdump/stack"
)

// Decoder is what every format's reader implements, driven by a
// [Reader]. NextDump returns the metadata of the next dump, or io.EOF.
// NextRoutine returns the dump's next routine, a *stack.ParseError to
// report and continue (with the partial routine it concerns, or nil),
// ErrEndOfDump at the end of the dump, or any other error to stop
// reading.
type Decoder interface {
	NextDump() (*stack.Dump, error)
	NextRoutine() (*stack.Routine, error)
}

// IsParseError reports whether err is, or wraps, a *stack.ParseError.
func IsParseError(err error) bool {
	_, ok := stack.AsParseError(err)
	return ok
}
