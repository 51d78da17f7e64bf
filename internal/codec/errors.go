package codec

import "errors"

// ErrEndOfDump is returned by a Decoder's NextRoutine at the end of a dump.
var ErrEndOfDump = errors.New("end of dump")

// ErrLineTooLong reports a line longer than Options.MaxLineBytes; the
// line was skipped and reading can go on (see LineReader).
var ErrLineTooLong = errors.New("line too long")
