package formats

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
)

// Format names an output encoding.
type Format string

// Output formats.
const (
	FormatText   Format = "text"   // Go traceback text (jstack form for JVM dumps); itself a dump
	FormatJSON   Format = "json"   // stackdump/v1 JSON, docs/json.md
	FormatDebug1 Format = "debug1" // /debug/pprof/goroutine?debug=1 compatible grouped text
	FormatPprof  Format = "pprof"  // pprof protobuf, one sample per stack
	FormatFolded Format = "folded" // Brendan Gregg's folded stacks
)

// Formats returns every output format, for flag help and errors; the
// slice is the caller's.
func Formats() []Format {
	return []Format{FormatText, FormatJSON, FormatDebug1, FormatPprof, FormatFolded}
}

// GroupedFormats returns the formats WriteGroups writes; the slice is the
// caller's.
func GroupedFormats() []Format { return []Format{FormatText, FormatJSON, FormatDebug1} }

// CanGroup reports whether WriteGroups writes format f.
func CanGroup(f Format) bool { return slices.Contains(GroupedFormats(), f) }

// ParseFormat parses a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, words.Or(Formats()))
}

// Encoder writes dumps one routine at a time. Call BeginDump, WriteRoutine
// for each routine, then EndDump, for each dump in turn. The Dump passed to
// EndDump is final (Truncated, Warnings, Total). Encoders write to a
// buffered io.Writer (an [Output]) and never flush it themselves.
//
// WriteRoutine may keep what the Table interned (stacks, frames, label
// sets, strings) but nothing else of r past its return: [Copy] reads with
// ReadOptions.ReuseRoutines, so r and its values are overwritten by the
// next routine. An encoder that must keep them copies them ([Routine.Clone]).
type Encoder interface {
	BeginDump(d *Dump) error
	WriteRoutine(r *Routine) error
	EndDump(d *Dump) error
}

// NewEncoder returns an Encoder of format f writing to w.
func NewEncoder(w io.Writer, f Format) (Encoder, error) {
	switch f {
	case FormatText:
		return newTextEncoder(w), nil
	case FormatJSON:
		return newJSONEncoder(w), nil
	case FormatDebug1:
		return newDebug1Encoder(w), nil
	case FormatPprof:
		return newPprofEncoder(w), nil
	case FormatFolded:
		return newFoldedEncoder(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", f, words.Or(Formats()))
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

// Copy streams every dump of src through enc and returns how many dumps
// it wrote: a [Pipeline] run without a context. Parse errors become
// warnings of their dump; onWarning, when not nil, sees each as it is
// found. Errors of enc are returned as enc returned them.
//
// When src is a *Reader that has not started reading, Copy turns on
// ReadOptions.ReuseRoutines: each routine goes to enc at once and is
// never seen again, so the reader need not allocate one per routine.
func Copy(enc Encoder, src DumpSource, onWarning func(*ParseError)) (int, error) {
	if rd, ok := src.(*Reader); ok {
		rd.reuseRoutines()
	}
	p := Pipeline{Source: src, Encoder: enc, OnWarning: onWarning}
	return p.Run(context.Background())
}
