package gotext

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes dumps to w as Go traceback
// text, the form the runtime prints (debug=2, panics, SIGQUIT), so that
// its output is itself a dump any Go tool reads. Dumps are separated by
// a blank line. w should be buffered (an output.Writer): the encoder
// writes in large chunks and does not flush it.
func NewEncoder(w io.Writer) stack.Encoder { return newTextEncoder(w) }

// WriteGroups writes a grouped dump (groups built by package dedupe, in
// the order given) as readable text, one block per group: a header with
// the count, states, wait times, locking and creator, the member ids,
// label sets, then the representative stack once. w should be buffered;
// WriteGroups writes in large chunks and does not flush it.
func WriteGroups(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
	return writeGroupsText(w, d, groups)
}
