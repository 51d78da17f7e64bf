package jvm

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
	// MaxLineBytes bounds the memory one input line may take: a longer
	// line is skipped (read to its end, never kept whole) with a
	// *stack.ParseError warning that names its line, byte offset, length
	// and first bytes, and reading goes on. Zero means 1 MiB.
	MaxLineBytes int
}

func (o ReadOptions) codec() codec.Options {
	return codec.Options{Table: o.Table, MaxLineBytes: o.MaxLineBytes}
}

// Reader reads JVM thread dumps as text (stack.KindJVMText): jstack,
// jcmd Thread.print, kill -3 output and Thread.dump_to_file's plain
// form, any number in one stream, with junk around them. It holds one
// thread at a time. docs/jvm.md lists the forms.
type Reader struct{ r *codec.Reader }

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	in := codec.StreamOf(r, stack.KindJVMText)
	return &Reader{r: codec.NewReader(newJVMTextDecoder(in, opts.codec()), in)}
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

// JSONReader reads the JSON form of jcmd Thread.dump_to_file -format=json
// (stack.KindJVMJSON): one dump per document, decoded whole, bounded by
// JSONReadOptions.MaxBytes.
type JSONReader struct{ r *codec.Reader }

// JSONReadOptions configure a [JSONReader].
type JSONReadOptions struct {
	// Table interns frames and stacks; nil means a new Table per reader.
	Table *stack.Table
	// MaxBytes bounds the document read into memory; past it reading
	// stops with an error. Zero means 16 GiB.
	MaxBytes int64
}

// NewJSONReader returns a JSONReader of r.
func NewJSONReader(r io.Reader, opts JSONReadOptions) *JSONReader {
	in := codec.StreamOf(r, stack.KindJVMJSON)
	return &JSONReader{r: codec.NewReader(newJVMJSONDecoder(in, codec.Options{Table: opts.Table, MaxBytes: opts.MaxBytes}), in)}
}

// Next advances to the next dump and returns its metadata, or io.EOF
// when the input holds no more dumps.
func (r *JSONReader) Next() (*stack.Dump, error) { return r.r.Next() }

// Routines yields the threads of the dump returned by the last Next; a
// *stack.ParseError is yielded with a nil routine and reading goes on.
func (r *JSONReader) Routines() iter.Seq2[*stack.Routine, error] { return r.r.Routines() }
