package formats

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"sync/atomic"

	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/exectrace"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// ReadOptions configure a [Reader].
type ReadOptions struct {
	// Kind forces the input format; empty means sniff it from the first bytes.
	Kind stack.Kind
	// Table interns frames and stacks; share one to compare stacks across
	// readers by pointer. Nil means a new Table per Reader.
	Table *stack.Table
	// MaxLineBytes bounds the memory a single input line may take. The
	// text readers (Go traceback, debug=1, JVM text) share one rule: a
	// longer line is skipped (read to its end, never kept whole) with a
	// ParseError warning that names its line, byte offset, length and
	// first bytes, and reading goes on. Zero means 1 MiB.
	MaxLineBytes int
	// MaxDecompressedBytes bounds how much a compressed input may inflate
	// to; past it reading stops with an error. Zero means 16 GiB.
	MaxDecompressedBytes int64
	// ReuseRoutines lets the reader reuse the memory of the routines it
	// yields, for callers that handle each routine at once (write it,
	// count it) and keep none: reading then allocates next to nothing per
	// routine. Like bufio.Scanner.Bytes, a routine and everything in it
	// that is not interned in the Table (Values and their Args strings,
	// CreatedByValues, Ancestors) are valid only until the next
	// routine is read or Next is called; use [stack.Routine.Clone] to keep one.
	// Stacks, frames, label sets and State stay valid, as always. Formats
	// whose readers do not reuse routines ignore it. ReadAll never reuses.
	ReuseRoutines bool
	// Progress, when not nil, has each routine's Count added as the
	// routine is read, for a progress display in another goroutine.
	Progress *atomic.Int64
}

// Reader reads dumps of any supported format from a stream, one routine at
// a time. The text and stackdump JSON readers never hold the whole input
// in memory; the pprof and JVM JSON readers read the whole document
// (bounded by ReadOptions.MaxDecompressedBytes).
//
//	rd := formats.NewReader(f, formats.ReadOptions{})
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
//				log.Print(err) // a *ParseError: reading goes on
//				continue
//			}
//			use(d, r)
//		}
//	}
type Reader struct {
	src   io.Reader
	opts  ReadOptions
	dec   source // the format's reader; nil before the first Next
	input *codec.Stream
	comp  output.Compression
	err   error
	done  bool   // the current dump's routines were all read
	mem   []byte // the input, when held in memory (inMem, NewReaderBytes)
	inMem bool
}

// source is what every format's reader is: a stack.DumpSource.
type source = stack.DumpSource

// NewReader returns a Reader of r. Compression (gzip, zstd) and the format
// are sniffed from the first bytes unless opts says otherwise.
func NewReader(r io.Reader, opts ReadOptions) *Reader {
	return &Reader{src: r, opts: opts.withDefaults(), done: true}
}

// NewReaderBytes returns a Reader of b, a dump held in memory. Readers of
// text formats cut lines from b itself instead of copying it through
// buffers, which reads a large traceback about a tenth faster; b must not
// change while it is read. A compressed b is read as NewReader reads it.
func NewReaderBytes(b []byte, opts ReadOptions) *Reader {
	return &Reader{mem: b, inMem: true, opts: opts.withDefaults(), done: true}
}

// Kind returns the sniffed or forced input format; empty before the first Next.
func (r *Reader) Kind() stack.Kind {
	if r.input == nil {
		return ""
	}
	return r.input.Kind
}

// reuseRoutines turns on ReadOptions.ReuseRoutines if no dump was read
// yet (the format's reader takes its options when the first dump is read).
func (r *Reader) reuseRoutines() {
	if r.dec == nil {
		r.opts.ReuseRoutines = true
	}
}

// Compression returns the compression the input was read through
// (output.None when plain); empty before the first Next.
func (r *Reader) Compression() output.Compression {
	if r.input == nil {
		return ""
	}
	return r.comp
}

// Table returns the Table the reader interns into.
func (r *Reader) Table() *stack.Table { return r.opts.Table }

// Next advances to the next dump and returns its metadata. Routines of the
// previous dump that were not read are skipped. It returns io.EOF when the
// input holds no more dumps.
func (r *Reader) Next() (*stack.Dump, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.dec == nil {
		var in *codec.Stream
		var comp output.Compression
		var err error
		if r.inMem {
			in, comp, err = openMemInput(r.mem, r.opts)
		} else {
			in, comp, err = openInput(r.src, r.opts)
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		r.input, r.comp = in, comp
		dec, err := newSource(in, r.opts)
		if err != nil {
			r.err = err
			return nil, err
		}
		r.dec = dec
	}
	// What is left of the current dump is read here, not by the format's
	// reader, so that Progress counts it.
	for range r.Routines() {
	}
	d, err := r.dec.Next()
	for err != nil {
		// A text dump of another form goes on where the last one
		// stopped: its reader reads on over the same stream.
		var of *codec.OtherFormError
		if !errors.As(err, &of) {
			break
		}
		r.input.Kind = of.Kind
		dec, nerr := newSource(r.input, r.opts)
		if nerr != nil {
			err = nerr
			break
		}
		r.dec = dec
		d, err = r.dec.Next()
	}
	if err != nil {
		r.err = err
		return nil, err
	}
	r.done = false
	return d, nil
}

// Routines yields the routines of the dump returned by the last Next. A
// *stack.ParseError is yielded with a nil routine (or the partial routine
// it concerns) and reading goes on; any other error ends the sequence and
// is returned by later calls to Next.
func (r *Reader) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		if r.done {
			return
		}
		for rt, err := range r.dec.Routines() {
			if err == nil && rt != nil && r.opts.Progress != nil {
				r.opts.Progress.Add(rt.Goroutines())
			}
			if !yield(rt, err) {
				return
			}
		}
		r.done = true
	}
}

// ReadAll reads every dump of r into memory, routines included. Parse
// errors are kept as each dump's Warnings; the error is the first error
// that stopped reading, with the dumps read until then.
func ReadAll(r io.Reader, opts ReadOptions) ([]*stack.Dump, error) {
	opts.ReuseRoutines = false // every routine is kept
	return stack.ReadAll(NewReader(r, opts))
}

// newSource returns the reader of the input's format.
func newSource(in *codec.Stream, o ReadOptions) (source, error) {
	switch in.Kind {
	case stack.KindGoTraceback:
		return gotext.NewReader(in, gotext.ReadOptions{Table: o.Table, MaxLineBytes: o.MaxLineBytes, ReuseRoutines: o.ReuseRoutines}), nil
	case stack.KindGoDebug1:
		return debug1.NewReader(in, debug1.ReadOptions{Table: o.Table, MaxLineBytes: o.MaxLineBytes}), nil
	case stack.KindGoPprof:
		return pprof.NewReader(in, pprof.ReadOptions{Table: o.Table, MaxBytes: o.MaxDecompressedBytes}), nil
	case stack.KindJSON:
		return dumpjson.NewReader(in, dumpjson.ReadOptions{Table: o.Table, MaxLineBytes: o.MaxLineBytes, MaxBytes: o.MaxDecompressedBytes}), nil
	case stack.KindJVMText:
		return jvm.NewReader(in, jvm.ReadOptions{Table: o.Table, MaxLineBytes: o.MaxLineBytes}), nil
	case stack.KindJVMJSON:
		return jvm.NewJSONReader(in, jvm.JSONReadOptions{Table: o.Table, MaxBytes: o.MaxDecompressedBytes}), nil
	case stack.KindGoTrace:
		return exectrace.NewReader(in, exectrace.ReadOptions{Table: o.Table}), nil
	}
	return nil, fmt.Errorf("%w: %q", stack.ErrUnknownFormat, in.Kind)
}
