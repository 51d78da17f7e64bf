package formats

// Placeholder while this format is being written; the file is deleted by
// the change that implements it.

import (
	"io"
)

var _ io.Writer

func newDebug1Decoder(in *Input, opts ReadOptions) decoder { return pendingCodec{} }

func newDebug1Encoder(w io.Writer) Encoder { return pendingCodec{} }
