package debug1

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

// Reader reads the text of /debug/pprof/goroutine?debug=1
// (stack.KindGoDebug1): `goroutine profile: total N`, then one `N @ 0x…`
// record per distinct stack with its `# labels:` and `#` frame lines.
// Each record is one routine standing for Count goroutines. It holds one
// record at a time. Other profiles' debug=1 pages (heap, block, mutex,
// threadcreate) are refused with stack.ErrNotGoroutineProfile.
type Reader struct{ r *codec.Reader }

// NewReader returns a Reader of r.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	in := codec.StreamOf(r, stack.KindGoDebug1)
	return &Reader{r: codec.NewReader(newDebug1Decoder(in, opts.codec()), in)}
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
