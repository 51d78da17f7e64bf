package codec

import (
	"errors"
	"io"
	"iter"

	"github.com/stackdump/stackdump/stack"
)

// Reader drives a Decoder over a Stream as every format's reader does:
// Next skips what is left of the current dump and returns the next one's
// metadata, Routines yields its routines, parse errors become warnings of
// their dump, and any other error sticks and names where the input broke
// off (Stream.ReadError).
type Reader struct {
	dec  Decoder
	in   *Stream
	cur  *stack.Dump
	err  error
	done bool // the current dump's routines were all read
	// noted is set once the first dump was returned, with the note of
	// the lines' layer (a reversed paste) if any.
	noted bool
}

// NewReader returns a Reader of dec, which reads in.
func NewReader(dec Decoder, in *Stream) *Reader {
	return &Reader{dec: dec, in: in, done: true}
}

// Reset makes r read dec over in from the start, as NewReader does.
func (r *Reader) Reset(dec Decoder, in *Stream) { *r = Reader{dec: dec, in: in, done: true} }

// Next advances to the next dump and returns its metadata, or io.EOF
// after the last.
func (r *Reader) Next() (*stack.Dump, error) {
	if r.err != nil {
		return nil, r.err
	}
	for !r.done {
		if _, err := r.step(); err != nil && !IsParseError(err) {
			if err == ErrEndOfDump {
				break
			}
			return nil, err
		}
	}
	d, err := r.dec.NextDump()
	if err != nil {
		r.err = err
		if err != io.EOF && !errors.Is(err, stack.ErrNotDump) {
			r.err = r.in.ReadError(err)
		}
		return nil, r.err
	}
	if !r.noted {
		r.noted = true
		// Asked of the layer now, not when it was made: an input too
		// large to hold is read in its order after all.
		if l := r.in.lines; l != nil {
			if note := l.Note(); note != "" {
				d.Warnings = append(d.Warnings, &stack.ParseError{Line: 1, Msg: note})
			}
		}
	}
	r.cur, r.done = d, false
	return d, nil
}

// step reads one routine of the current dump, recording parse errors as
// warnings of the dump.
func (r *Reader) step() (*stack.Routine, error) {
	rt, err := r.dec.NextRoutine()
	switch {
	case err == nil:
		return rt, nil
	case err == ErrEndOfDump:
		r.done = true
		return nil, err
	case IsParseError(err):
		pe, _ := stack.AsParseError(err)
		r.cur.Warnings = append(r.cur.Warnings, pe)
		return rt, err
	default:
		r.done = true
		r.err = r.in.ReadError(err)
		return nil, r.err
	}
}

// Routines yields the routines of the dump returned by the last Next. A
// *stack.ParseError is yielded with a nil routine (or the partial routine
// it concerns) and reading goes on; any other error ends the sequence and
// is returned by later calls to Next.
func (r *Reader) Routines() iter.Seq2[*stack.Routine, error] {
	return func(yield func(*stack.Routine, error) bool) {
		for !r.done {
			rt, err := r.step()
			if err == ErrEndOfDump {
				return
			}
			if !yield(rt, err) {
				return
			}
			if err != nil && !IsParseError(err) {
				return
			}
		}
	}
}
