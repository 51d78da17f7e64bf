package pprof

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
	// MaxBytes bounds the document read into memory (the profile, uncompressed); past it
	// reading stops with an error. Zero means 16 GiB.
	MaxBytes int64
}

func (o ReadOptions) codec() codec.Options {
	return codec.Options{Table: o.Table, MaxBytes: o.MaxBytes}
}

// Reader reads a goroutine profile in pprof's protobuf form
// (stack.KindGoPprof: /debug/pprof/goroutine?debug=0, gzipped or not):
// one routine per sample, standing for its count of goroutines, with the
// sample's labels. The profile is decoded whole, bounded by
// ReadOptions.MaxBytes; a profile of something else than goroutines is
// refused with stack.ErrNotGoroutineProfile.
type Reader struct{ r *codec.Reader }

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	in := codec.StreamOf(r, stack.KindGoPprof)
	return &Reader{r: codec.NewReader(newPprofDecoder(in, opts.codec()), in)}
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
