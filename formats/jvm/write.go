package jvm

import (
	"io"

	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder that writes dumps to w as jstack text,
// the form HotSpot prints, so that the Reader reads it back: headers with
// their ids, states, frames with their lock lines, and the JVM's own
// deadlock report. w should be buffered.
func NewEncoder(w io.Writer) stack.Encoder { return newJVMTextEncoder(w) }
