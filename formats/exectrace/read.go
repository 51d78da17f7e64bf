package exectrace

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
}

func (o ReadOptions) codec() codec.Options {
	return codec.Options{Table: o.Table}
}

// Reader reads a runtime/trace execution trace (stack.KindGoTrace) as
// one dump: every goroutine the trace knows at its end, with the stack
// and state of its last event (docs/go-formats.md says what is inferred).
// It streams the events but keeps the state of every goroutine until the
// end of the trace.
type Reader struct{ r *codec.Reader }

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	in := codec.StreamOf(r, stack.KindGoTrace)
	return &Reader{r: codec.NewReader(newTraceDecoder(in, opts.codec()), in)}
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
