package dumpjson

import (
	"io"
	"iter"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// ReadOptions configure a [Reader].
type ReadOptions struct {
	// Table interns frames and stacks; share one to compare stacks across
	// readers by pointer. Nil means a new Table per reader.
	Table *stack.Table
	// MaxLineBytes bounds one element of the document (a routine, a
	// group) as the text readers bound a line, and its metadata to 16
	// times as much; a larger element is skipped with a warning. Zero
	// means 1 MiB.
	MaxLineBytes int
	// MaxBytes bounds the document read into memory when its routines come before its metadata (as after `jq -S`); past it
	// reading stops with an error. Zero means 16 GiB.
	MaxBytes int64
}

func (o ReadOptions) codec() codec.Options {
	return codec.Options{Table: o.Table, MaxLineBytes: o.MaxLineBytes, MaxBytes: o.MaxBytes}
}

// Reader reads stackdump's JSON (stack.KindJSON, docs/json.md): dumps of
// routines and grouped dumps, one document or a stream of them. It holds
// one routine at a time; a document whose routines come before its
// metadata has them read whole.
type Reader struct{ r *codec.Reader }

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	in := codec.StreamOf(r, stack.KindJSON)
	return &Reader{r: codec.NewReader(newJSONDecoder(in, opts.codec()), in)}
}

// Next advances to the next dump and returns its metadata. Routines of
// the previous dump that were not read are skipped. It returns io.EOF
// when the input holds no more dumps.
func (r *Reader) Next() (*stack.Dump, error) { return r.r.Next() }

// Routines yields the routines of the dump returned by the last Next. A
// *stack.ParseError is yielded with a nil routine (or the partial
// routine it concerns) and reading goes on; any other error ends the
// sequence and is returned by later calls to Next.
func (r *Reader) Routines() iter.Seq2[*stack.Routine, error] { return r.r.Routines() }
