package debug1

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes each dump to w as
// /debug/pprof/goroutine?debug=1 text: `goroutine profile: total N`, then
// one record per distinct stack and label set, most goroutines first, as
// runtime/pprof writes it. The text is written at EndDump: the header
// needs every routine's count first. w should be buffered.
func NewEncoder(w io.Writer) stack.Encoder { return newDebug1Encoder(w) }

// WriteGroups writes a grouped dump (groups built by package dedupe) as
// debug=1 text, one record per group and label set: each group's sample
// stands for its members.
func WriteGroups(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
	return writeGroupsDebug1(w, d, groups)
}
