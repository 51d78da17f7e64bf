package formats

import (
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// withDefaults returns o with a nil Table and zero limits replaced by
// their defaults (a new Table, 1 MiB lines, 16 GiB decompressed), as the
// ReadOptions doc comment promises.
func (o ReadOptions) withDefaults() ReadOptions {
	if o.Table == nil {
		o.Table = stack.NewTable()
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = codec.DefaultMaxLine
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = codec.DefaultMaxBytes
	}
	return o
}
