package folded

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes one dump to w as Brendan
// Gregg's folded stacks (`outer;…;inner count` per line), the input of
// flame graph tools. Folded stacks stand for one moment of one process: a
// second dump is refused with stack.ErrOneDumpPerProfile.
func NewEncoder(w io.Writer) stack.Encoder { return newFoldedEncoder(w) }
