package formats

import "errors"

// errEndOfDump is returned by a decoder's nextRoutine at the end of a dump.
var errEndOfDump = errors.New("end of dump")

// errLineTooLong reports a line longer than ReadOptions.MaxLineBytes; the
// line was skipped and reading can go on (see lineReader).
var errLineTooLong = errors.New("line too long")
