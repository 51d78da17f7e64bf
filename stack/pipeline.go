package stack

import (
	"context"
	"io"
	"iter"
)

// DumpSource yields dumps and their routines, as every format's reader
// does (formats.Reader, gotext.Reader, …): Next
// returns the next dump's metadata (io.EOF after the last), Routines its
// routines, a *ParseError standing for a routine that could not be read
// (with a nil routine, or the partial routine it concerns).
// remote.Document is one too.
type DumpSource interface {
	Next() (*Dump, error)
	Routines() iter.Seq2[*Routine, error]
}

// pipelineCheckEvery is how many routines a Pipeline reads between two
// looks at its context.
const pipelineCheckEvery = 4096

// Pipeline streams the dumps of a [DumpSource] through an [Encoder]: for
// each dump BeginDump, WriteRoutine for each routine as it is read, then
// EndDump. It is the one read → encode loop of stackdump; grouping is an
// Encoder stage in front of the writer (dedupe.NewGroupingEncoder), and so
// is anything else that must see every routine.
//
// A *ParseError of the source stands for a routine that could not be read:
// it is among its dump's Warnings, OnWarning sees it, the partial routine
// that comes with it, if any, is written as the partial result a
// ParseError promises, and reading goes on. Any other error stops the
// pipeline. Errors are matched with errors.As, so a source may wrap its
// parse errors.
//
//	p := stack.Pipeline{Source: rd, Encoder: enc, OnWarning: warn}
//	n, err := p.Run(ctx)
type Pipeline struct {
	// Source is what the pipeline reads.
	Source DumpSource
	// Encoder is where every dump and routine goes.
	Encoder Encoder
	// OnWarning, when not nil, sees each parse error as it is read.
	OnWarning func(*ParseError)
	// ReadError, when not nil, wraps every error of reading the source
	// (not io.EOF, not the Encoder's, not the context's) before it is
	// returned, to name what was read ("read stacks: %w").
	ReadError func(error) error
}

// Run streams every dump of the source through the encoder and returns
// how many dumps it wrote (EndDump returned). It stops at the first error
// of reading, of the encoder or of ctx, which it checks before each dump
// and every few thousand routines; the end of the input is no error.
func (p *Pipeline) Run(ctx context.Context) (int, error) {
	n := 0
	for {
		_, err := p.Next(ctx)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// Next streams the next dump of the source through the encoder and
// returns it: final after EndDump, with its Warnings, Total and
// Truncated. At the end of the input it returns io.EOF and calls the
// encoder not at all. After an error that stopped the dump half way it
// returns the dump read so far with the error, and EndDump is not called.
func (p *Pipeline) Next(ctx context.Context) (*Dump, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := p.Source.Next()
	if err == io.EOF {
		return nil, err
	}
	if err != nil {
		return nil, p.readError(err)
	}
	if err := p.Encoder.BeginDump(d); err != nil {
		return d, err
	}
	i := 0
	for r, err := range p.Source.Routines() {
		if err != nil {
			pe, ok := AsParseError(err)
			if !ok {
				return d, p.readError(err)
			}
			if p.OnWarning != nil {
				p.OnWarning(pe)
			}
		}
		if r == nil {
			continue
		}
		if i++; i%pipelineCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return d, err
			}
		}
		if err := p.Encoder.WriteRoutine(r); err != nil {
			return d, err
		}
	}
	if err := ctx.Err(); err != nil {
		return d, err
	}
	return d, p.Encoder.EndDump(d)
}

func (p *Pipeline) readError(err error) error {
	if p.ReadError == nil {
		return err
	}
	return p.ReadError(err)
}

// RoutineFunc is a func as the last stage of a [Pipeline] (an [Encoder])
// for a consumer that needs only the routines: it is called with each
// routine, and BeginDump and EndDump do nothing.
//
//	p := stack.Pipeline{Source: rd, Encoder: stack.RoutineFunc(a.Add)}
type RoutineFunc func(*Routine)

// BeginDump does nothing.
func (f RoutineFunc) BeginDump(*Dump) error { return nil }

// WriteRoutine calls f(r).
func (f RoutineFunc) WriteRoutine(r *Routine) error {
	f(r)
	return nil
}

// EndDump does nothing.
func (f RoutineFunc) EndDump(*Dump) error { return nil }

// Encoder writes dumps one routine at a time. Call BeginDump, WriteRoutine
// for each routine, then EndDump, for each dump in turn. The Dump passed to
// EndDump is final (Truncated, Warnings, Total). Encoders write to a
// buffered io.Writer (output.Writer) and never flush it themselves.
//
// WriteRoutine may keep what the Table interned (stacks, frames, label
// sets, strings) but nothing else of r past its return: formats.Copy reads with
// ReadOptions.ReuseRoutines, so r and its values are overwritten by the
// next routine. An encoder that must keep them copies them ([Routine.Clone]).
type Encoder interface {
	BeginDump(d *Dump) error
	WriteRoutine(r *Routine) error
	EndDump(d *Dump) error
}

// WriteDump writes an in-memory dump through enc.
func WriteDump(enc Encoder, d *Dump) error {
	if err := enc.BeginDump(d); err != nil {
		return err
	}
	for _, r := range d.Routines {
		if err := enc.WriteRoutine(r); err != nil {
			return err
		}
	}
	return enc.EndDump(d)
}

// ReadAll reads every dump of src into memory, routines included: each
// dump's Routines holds the routines read, and its parse errors are its
// Warnings. The error is the first that stopped reading, with the dumps
// read until then. src must not reuse routines (its reader's
// ReuseRoutines off).
func ReadAll(src DumpSource) ([]*Dump, error) {
	var dumps []*Dump
	for {
		d, err := src.Next()
		if err == io.EOF {
			return dumps, nil
		}
		if err != nil {
			return dumps, err
		}
		dumps = append(dumps, d)
		for rt, err := range src.Routines() {
			if rt != nil && err == nil {
				d.Routines = append(d.Routines, rt)
			}
		}
	}
}
