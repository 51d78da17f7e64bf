package codec

import "errors"

// ErrEndOfDump is returned by a Decoder's NextRoutine at the end of a dump.
var ErrEndOfDump = errors.New("end of dump")

// ErrLineTooLong reports a line longer than Options.MaxLineBytes; the
// line was skipped and reading can go on (see LineReader).
var ErrLineTooLong = errors.New("line too long")

// ErrRegionEnd is returned by Lines.Read, from a paste layer, at a line
// that closes a paste region: a closing fence, a closing HTML tag, prose
// after the dump. A reader ends the dump there as it would at the end of
// the input, judging whether it was cut (the line before has Last set),
// and goes on reading: another dump may follow. Num and Off name the
// closing line.
var ErrRegionEnd = errors.New("end of a paste region")

// ErrGap is returned by Lines.Read, from a paste layer, at a grep group
// separator ("--"): lines of the dump were left out there. A reader ends
// the routine it was reading and says so in a warning naming the line
// (Num and Off), and goes on.
var ErrGap = errors.New("lines left out of the paste here")
