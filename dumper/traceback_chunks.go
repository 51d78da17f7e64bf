package dumper

import (
	"bytes"

	"github.com/stackdump/stackdump/stack"
)

// goroutineSep is what runtime.Stack prints between two goroutines: a
// blank line, then the next header.
var goroutineSep = []byte("\n\ngoroutine ")

// cutTraceback returns the length of the first chunk of traceback text
// that holds at least size bytes and ends at a goroutine boundary: the
// next chunk starts with the blank line before a header. It is all of
// text when text is no longer than size or no header follows, and when
// what follows is only a header the capture cut (no newline after it):
// read alone, that piece would look like junk after a dump, while after
// the goroutines before it the reader knows it for a cut record and
// marks the dump truncated, as the serial reading does. Both the
// parallel reading of a capture and its parallel JSON cut with it.
func cutTraceback(text []byte, size int) int {
	if len(text) > size {
		if j := bytes.Index(text[size:], goroutineSep); j >= 0 {
			cut := size + j + 1
			if bytes.IndexByte(text[cut+1:], '\n') < 0 {
				return len(text) // the rest is a cut header: keep it with this chunk
			}
			return cut
		}
	}
	return len(text)
}

// collectStage is the last stage of a stack.Pipeline that keeps every
// routine in its dump's Routines: a capture read whole into memory.
type collectStage struct{ d *stack.Dump }

func (c *collectStage) BeginDump(d *stack.Dump) error { c.d = d; return nil }
func (c *collectStage) EndDump(*stack.Dump) error     { return nil }
func (c *collectStage) WriteRoutine(r *stack.Routine) error {
	c.d.Routines = append(c.d.Routines, r)
	return nil
}
