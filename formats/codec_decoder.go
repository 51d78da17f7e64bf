package formats

import "errors"

// decoder is what every format reader implements. nextDump returns the
// metadata of the next dump, or io.EOF. nextRoutine returns the dump's next
// routine, a *ParseError to report and continue, errEndOfDump at the end of
// the dump, or any other error to stop reading.
type decoder interface {
	nextDump() (*Dump, error)
	nextRoutine() (*Routine, error)
}

func isParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}
