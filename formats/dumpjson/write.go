package dumpjson

import (
	"io"

	"github.com/stackdump/stackdump/internal/jsonenc"
	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes dumps to w as stackdump/v1
// JSON (docs/json.md), one document per dump, routines streamed as they
// come. w should be buffered (an output.Writer); the encoder writes in
// large chunks and does not flush it.
func NewEncoder(w io.Writer) stack.Encoder { return jsonenc.NewEncoder(w) }

// WriteGroups writes a grouped dump (groups built by package dedupe, in
// the order given) as a stackdump/v1 grouped document, which the Reader
// reads back.
func WriteGroups(w io.Writer, d *stack.Dump, groups []*stack.Group) error {
	return jsonenc.WriteGroups(w, d, groups)
}
