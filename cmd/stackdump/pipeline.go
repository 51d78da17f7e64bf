package main

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"

	"github.com/stackdump/stackdump/internal/words"
)

// pipeline streams dumps from a reader to a writer: routines through an
// Encoder as they arrive, or, when grouped, each dump's groups at its end.
// Either way every dump is grouped as it streams, for summaries.
type pipeline struct {
	format  formats.Format
	grouped bool
	// summarize groups every dump even when routines are written, so that
	// results carry groups for summaries; otherwise ungrouped output skips
	// grouping.
	summarize bool
	by        dedupe.By
	onWarning func(*formats.ParseError)
	// routines, when not nil, counts routines read (for progress displays).
	routines *atomic.Int64
	// source, when not nil, completes each dump's Source before it is
	// written (the capture's target and time).
	source func(*formats.Source)
}

// check reports a format that cannot carry the requested output.
func (p pipeline) check() error {
	if p.grouped && !formats.CanGroup(p.format) {
		return fmt.Errorf("--dedupe writes %s, not %s", words.Or(formats.GroupedFormats()), p.format)
	}
	return nil
}

// dumpResult is one dump that went through a pipeline, with its groups.
type dumpResult struct {
	dump   *formats.Dump
	groups []*formats.Group
	by     dedupe.By // the level groups were made at
	// leaked counts routines in `(leaked)` states (proven leaks, from the
	// Go runtime's goroutine leak detection).
	leaked int64
}

// run streams every dump of rd into w through formats.Copy. It returns
// the dumps it wrote.
func (p pipeline) run(rd formats.DumpSource, w io.Writer) ([]dumpResult, error) {
	pe := &pipelineEncoder{p: p, w: w}
	if !p.grouped {
		var err error
		if pe.enc, err = formats.NewEncoder(w, p.format); err != nil {
			return nil, err
		}
	}
	n, err := formats.Copy(pe, rd, p.onWarning)
	if err == nil && n == 0 {
		err = errors.New("no dump found")
	}
	return pe.results, err
}

// pipelineEncoder is the formats.Encoder a pipeline copies into: it writes
// routines through enc as they arrive, or, when enc is nil (grouped), each
// dump's groups at its end, and groups, counts and completes every dump on
// the way. Errors of the output are outputErrors.
type pipelineEncoder struct {
	p       pipeline
	w       io.Writer
	enc     formats.Encoder // nil when grouped
	g       *dedupe.Grouper // the current dump's, nil when not grouping
	leaked  int64
	results []dumpResult
}

func (e *pipelineEncoder) BeginDump(d *formats.Dump) error {
	if e.p.source != nil {
		e.p.source(&d.Source)
	}
	e.g, e.leaked = nil, 0
	if e.p.grouped || e.p.summarize {
		e.g = dedupe.NewGrouper(dedupe.Options{By: e.p.by})
	}
	if e.enc != nil {
		if err := e.enc.BeginDump(d); err != nil {
			return outputError{err}
		}
	}
	return nil
}

func (e *pipelineEncoder) WriteRoutine(r *formats.Routine) error {
	if e.g != nil {
		e.g.Add(r)
	}
	if r.Leaked {
		e.leaked += r.Count
	}
	if e.p.routines != nil {
		e.p.routines.Add(r.Count)
	}
	if e.enc != nil {
		if err := e.enc.WriteRoutine(r); err != nil {
			return outputError{err}
		}
	}
	return nil
}

func (e *pipelineEncoder) EndDump(d *formats.Dump) error {
	var groups []*formats.Group
	if e.g != nil {
		groups = e.g.Groups()
	}
	var err error
	if e.enc != nil {
		err = e.enc.EndDump(d)
	} else {
		err = formats.WriteGroups(e.w, e.p.format, d, groups)
	}
	if err != nil {
		return outputError{err}
	}
	e.results = append(e.results, dumpResult{dump: d, groups: groups, by: e.p.by, leaked: e.leaked})
	return nil
}

// outputError is a failure to write the output rather than to read the
// input, so that callers name the output (its own error does) and not the
// input.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }
