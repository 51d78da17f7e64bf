package gotext

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// readAll reads every dump of r into memory, routines kept, as
// formats.ReadAll reads a Go traceback.
func readAll(r io.Reader, opts ReadOptions) ([]*stack.Dump, error) {
	opts.ReuseRoutines = false // every routine is kept
	return stack.ReadAll(NewReader(r, opts))
}
