package formats

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"sync/atomic"
)

// ReadOptions configure a [Reader].
type ReadOptions struct {
	// Kind forces the input format; empty means sniff it from the first bytes.
	Kind Kind
	// Table interns frames and stacks; share one to compare stacks across
	// readers by pointer. Nil means a new Table per Reader.
	Table *Table
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
	// routine is read or Next is called; use [Routine.Clone] to keep one.
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
	dec   decoder
	input *inputStream
	cur   *Dump
	err   error
	done  bool   // current dump's routines were all read
	mem   []byte // the input, when held in memory (inMem, NewReaderBytes)
	inMem bool
}

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
func (r *Reader) Kind() Kind {
	if r.input == nil {
		return ""
	}
	return r.input.Kind
}

// reuseRoutines turns on ReadOptions.ReuseRoutines if no dump was read
// yet (the decoder takes its options when the first dump is read).
func (r *Reader) reuseRoutines() {
	if r.dec == nil {
		r.opts.ReuseRoutines = true
	}
}

// Compression returns the compression the input was read through
// (CompressNone when plain); empty before the first Next.
func (r *Reader) Compression() Compression {
	if r.input == nil {
		return ""
	}
	return r.input.Compression
}

// Table returns the Table the reader interns into.
func (r *Reader) Table() *Table { return r.opts.Table }

// Next advances to the next dump and returns its metadata. Routines of the
// previous dump that were not read are skipped. It returns io.EOF when the
// input holds no more dumps.
func (r *Reader) Next() (*Dump, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.dec == nil {
		var in *inputStream
		var err error
		if r.inMem {
			in, err = openMemInput(r.mem, r.opts)
		} else {
			in, err = openInput(r.src, r.opts)
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		r.input = in
		dec, err := newDecoder(in, r.opts)
		if err != nil {
			r.err = err
			return nil, err
		}
		r.dec = dec
	}
	for !r.done {
		if _, err := r.step(); err != nil && !isParseError(err) {
			if err == errEndOfDump {
				break
			}
			return nil, err
		}
	}
	d, err := r.dec.nextDump()
	if err != nil {
		r.err = err
		if err != io.EOF && !errors.Is(err, ErrNotDump) {
			r.err = r.input.readError(err)
		}
		return nil, r.err
	}
	r.cur, r.done = d, false
	return d, nil
}

// step reads one routine of the current dump, recording parse errors as
// warnings of the dump.
func (r *Reader) step() (*Routine, error) {
	rt, err := r.dec.nextRoutine()
	switch {
	case err == nil:
		if r.opts.Progress != nil && rt != nil {
			r.opts.Progress.Add(rt.Goroutines())
		}
		return rt, nil
	case err == errEndOfDump:
		r.done = true
		return nil, err
	case isParseError(err):
		var pe *ParseError
		errors.As(err, &pe)
		r.cur.Warnings = append(r.cur.Warnings, pe)
		return rt, err
	default:
		r.done = true
		r.err = r.input.readError(err)
		return nil, r.err
	}
}

// Routines yields the routines of the dump returned by the last Next. A
// *ParseError is yielded with a nil routine (or the partial routine it
// concerns) and reading goes on; any other error ends the sequence and is
// returned by later calls to Next.
func (r *Reader) Routines() iter.Seq2[*Routine, error] {
	return func(yield func(*Routine, error) bool) {
		for !r.done {
			rt, err := r.step()
			if err == errEndOfDump {
				return
			}
			if !yield(rt, err) {
				return
			}
			if err != nil && !isParseError(err) {
				return
			}
		}
	}
}

// ReadAll reads every dump of r into memory, routines included. Parse
// errors are kept as each dump's Warnings; the error is the first error
// that stopped reading, with the dumps read until then.
func ReadAll(r io.Reader, opts ReadOptions) ([]*Dump, error) {
	opts.ReuseRoutines = false // every routine is kept
	rd := NewReader(r, opts)
	var dumps []*Dump
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return dumps, nil
		}
		if err != nil {
			return dumps, err
		}
		dumps = append(dumps, d)
		for rt, err := range rd.Routines() {
			if rt != nil && err == nil {
				d.Routines = append(d.Routines, rt)
			}
		}
	}
}

// newDecoder picks the decoder for the input's kind.
func newDecoder(in *inputStream, opts ReadOptions) (decoder, error) {
	switch in.Kind {
	case KindGoTraceback:
		return newGoTextDecoder(in, opts), nil
	case KindGoDebug1:
		return newDebug1Decoder(in, opts), nil
	case KindGoPprof:
		return newPprofDecoder(in, opts), nil
	case KindJSON:
		return newJSONDecoder(in, opts), nil
	case KindJVMText:
		return newJVMTextDecoder(in, opts), nil
	case KindJVMJSON:
		return newJVMJSONDecoder(in, opts), nil
	case KindGoTrace:
		return newTraceDecoder(in, opts), nil
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownFormat, in.Kind)
}
