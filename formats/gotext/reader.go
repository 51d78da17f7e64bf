package gotext

import (
	"io"
	"iter"

	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

// ReadOptions configure a [Reader].
type ReadOptions struct {
	// Table interns frames and stacks; share one to compare stacks across
	// readers by pointer. Nil means a new Table per Reader.
	Table *stack.Table
	// MaxLineBytes bounds the memory one input line may take: a longer
	// line is skipped (read to its end, never kept whole) with a
	// *stack.ParseError warning that names its line, byte offset, length
	// and first bytes, and reading goes on. Zero means 1 MiB.
	MaxLineBytes int
	// ReuseRoutines lets the reader reuse the memory of the routines it
	// yields, for callers that handle each routine at once (write it,
	// count it) and keep none: reading then allocates next to nothing per
	// routine. Like bufio.Scanner.Bytes, a routine and everything in it
	// that is not interned in the Table (Values and their Args strings,
	// CreatedByValues, Ancestors) are valid only until the next routine
	// is read or Next is called; use [stack.Routine.Clone] to keep one.
	ReuseRoutines bool

	// lineByLine turns the accelerator off (accel.go): every line goes
	// through the lexer and the assembler. The tests read each input
	// both ways and compare.
	lineByLine bool
}

func (o ReadOptions) codec() codec.Options {
	return codec.Options{Table: o.Table, MaxLineBytes: o.MaxLineBytes, ReuseRoutines: o.ReuseRoutines}
}

// Reader reads Go traceback text (stack.KindGoTraceback): runtime.Stack
// output, /debug/pprof/goroutine?debug=2, panics, fatal errors, SIGQUIT
// dumps and race reports, any number of dumps in one stream, with junk
// around them. It holds one routine at a time, never the input.
// docs/go-formats.md lists every form it reads.
//
//	rd := gotext.NewReader(f, gotext.ReadOptions{})
//	for {
//		d, err := rd.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err
//		}
//		for r, err := range rd.Routines() {
//			if err != nil {
//				log.Print(err) // a *stack.ParseError: reading goes on
//				continue
//			}
//			use(d, r)
//		}
//	}
type Reader struct {
	r   codec.Reader
	dec *goTextDecoder
}

// NewReader returns a Reader of r. It reads r as a person may have
// pasted it too: the paste's frame (Markdown fences, quotes, log
// prefixes, a reversed order…; docs/paste-forms.md) is set aside.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	c := opts.codec()
	c.Lines = pastedLines
	rd := newReader(codec.StreamOf(r, stack.KindGoTraceback), c, opts.lineByLine)
	rd.dec.other.line = otherFormLine
	return rd
}

// NewReaderBytes returns a Reader of b, a traceback held in memory: lines
// are cut from b itself instead of being copied through buffers, which
// reads a large traceback about a tenth faster. b must not change while
// it is read.
func NewReaderBytes(b []byte, opts ReadOptions) *Reader {
	return NewReader(memStream(b), opts)
}

// NewRuntimeReader returns a Reader of r, text the Go runtime wrote
// (runtime.Stack, a debug=2 profile, a crash) and nobody pasted: it does
// not look for a paste frame, and a program that reads its own goroutines
// with it (the dumper, leakcheck) links none of that code. Reset keeps
// the choice.
func NewRuntimeReader(r io.Reader, opts ReadOptions) *Reader {
	return newReader(codec.StreamOf(r, stack.KindGoTraceback), opts.codec(), opts.lineByLine)
}

// NewRuntimeReaderBytes is NewRuntimeReader for text held in memory, as
// NewReaderBytes reads it.
func NewRuntimeReaderBytes(b []byte, opts ReadOptions) *Reader {
	return NewRuntimeReader(memStream(b), opts)
}

// pastedLines are the lines of in with a paste's frame set aside, learnt
// with the stream's forms, or with this package's alone (Form).
func pastedLines(in *codec.Stream, max int) *codec.Lines {
	return unpaste.NewLines(in, max, codec.Forms{Form()})
}

func newReader(in *codec.Stream, c codec.Options, lineByLine bool) *Reader {
	dec := newGoTextDecoder(in, c, lineByLine)
	return &Reader{r: *codec.NewReader(dec, in), dec: dec}
}

// memStream is b as the input of a Reader; the reader cuts its lines
// from b and never reads the stream's buffer, which is kept small.
func memStream(b []byte) *codec.Stream { return codec.NewMemStream(b, stack.KindGoTraceback, 16) }

// Reset makes r read rd from its first line, as a new Reader would, but
// keeping what it learnt of the stacks met so far (their trie and the
// Table): a reader reset onto the next input of the same process reads
// it without allocating its stacks again.
func (r *Reader) Reset(rd io.Reader) { r.reset(codec.StreamOf(rd, stack.KindGoTraceback)) }

// ResetBytes is Reset for a traceback held in memory, as NewReaderBytes
// reads it.
func (r *Reader) ResetBytes(b []byte) { r.reset(memStream(b)) }

func (r *Reader) reset(in *codec.Stream) {
	r.dec.reset(in)
	r.r.Reset(r.dec, in)
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

// Table returns the Table the reader interns into.
func (r *Reader) Table() *stack.Table { return r.dec.t }
