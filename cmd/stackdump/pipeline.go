package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// pipeline streams dumps from a reader to a writer: routines through an
// Encoder as they arrive, or, when grouped, each dump's groups at its end.
// Either way every dump is grouped as it streams, for summaries.
type pipeline struct {
	format  output.Format
	grouped bool
	// summarize groups every dump even when routines are written, so that
	// results carry groups for summaries; otherwise ungrouped output skips
	// grouping.
	summarize bool
	by        dedupe.By
	onWarning func(*stack.ParseError)
	// routines, when not nil, counts routines read (for progress displays).
	routines *atomic.Int64
	// source, when not nil, completes each dump's Source before it is
	// written (the capture's target and time).
	source func(*stack.Source)
	// filter, when not nil, keeps the routines it keeps (--focus,
	// --ignore) in front of every other stage.
	filter *filter.Filter
	// routine, when not nil, sees each routine as it streams (watch's
	// goroutine ids).
	routine func(*stack.Routine)
	// analysis, when not nil, analyses each dump as it streams, as
	// stackdump analyze does (dumpResult.summary: its findings); it needs
	// the groups (grouped or summarize). ended, when not nil, is called
	// once a dump's routines are all read, before its analysis is made
	// (watch tells a restarted target there, before its history is read).
	analysis *analyze.Options
	ended    func(*stack.Dump)
}

// check reports a format that cannot carry the requested output.
func (p pipeline) check() error {
	if p.grouped && !output.CanGroup(p.format) {
		return fmt.Errorf("--dedupe writes %s, not %s", words.Or(output.GroupedFormats()), p.format)
	}
	return nil
}

// dumpResult is one dump that went through a pipeline, with its groups.
type dumpResult struct {
	dump   *stack.Dump
	groups []*stack.Group
	by     dedupe.By // the level groups were made at
	// leaked counts routines in `(leaked)` states (proven leaks, from the
	// Go runtime's goroutine leak detection).
	leaked int64
	// summary is the dump's analysis (pipeline.analysis); nil without.
	summary *analyze.Summary
}

// run streams every dump of rd into w through a stack.Pipeline. It
// returns the dumps it wrote.
func (p pipeline) run(rd stack.DumpSource, w io.Writer) ([]dumpResult, error) {
	var (
		enc stack.Encoder
		g   *dedupe.GroupingEncoder
		err error
	)
	opts := dedupe.Options{By: p.by}
	if p.grouped {
		var write func(*stack.Dump, []*stack.Group) error
		if write, err = groupWriter(w, p.format); err == nil {
			g = dedupe.NewGroupingEncoder(write, opts)
			enc = g
		}
	} else if enc, err = formats.NewEncoder(w, p.format); err == nil && p.summarize {
		g = dedupe.GroupThrough(enc, opts)
		enc = g
	}
	if err != nil {
		return nil, err
	}
	rd, _ = filterInput(p.filter, rd)
	re := &resultEncoder{p: p, next: enc, groups: g}
	fp := stack.Pipeline{Source: rd, Encoder: re, OnWarning: p.onWarning}
	n, err := fp.Run(context.Background())
	if err == nil && n == 0 {
		return nil, fmt.Errorf("no dump found")
	}
	return re.results, err
}

// resultEncoder is the last stage of a CLI pipeline, in front of the
// writer (and the grouping stage, when there is one): it completes each
// dump's Source, counts routines, and keeps each dump's result. Errors of
// the stages behind it are the output's (outputError).
type resultEncoder struct {
	p       pipeline
	next    stack.Encoder
	groups  *dedupe.GroupingEncoder // nil when not grouping
	leaked  int64
	results []dumpResult
	a       *analyze.Analyzer // the dump's analysis (pipeline.analysis)
}

func (e *resultEncoder) BeginDump(d *stack.Dump) error {
	if e.p.source != nil {
		e.p.source(&d.Source)
	}
	e.leaked = 0
	e.a = nil
	if e.p.analysis != nil && e.groups != nil {
		e.a = analyze.NewAnalyzer(*e.p.analysis)
	}
	return outputErr(e.next.BeginDump(d))
}

func (e *resultEncoder) WriteRoutine(r *stack.Routine) error {
	if r.Leaked {
		e.leaked += r.Count
	}
	if e.p.routines != nil {
		e.p.routines.Add(r.Count)
	}
	if e.p.routine != nil {
		e.p.routine(r)
	}
	if e.a != nil {
		e.a.Add(r)
	}
	return outputErr(e.next.WriteRoutine(r))
}

func (e *resultEncoder) EndDump(d *stack.Dump) error {
	if err := e.next.EndDump(d); err != nil {
		return outputError{err}
	}
	var groups []*stack.Group
	if e.groups != nil {
		groups = e.groups.Groups()
	}
	res := dumpResult{dump: d, groups: groups, by: e.p.by, leaked: e.leaked}
	if e.p.ended != nil {
		e.p.ended(d)
	}
	if e.a != nil {
		res.summary = e.a.Summary(d, groups, "")
	}
	e.results = append(e.results, res)
	return nil
}

// outputErr marks a non-nil err as the output's.
func outputErr(err error) error {
	if err == nil {
		return nil
	}
	return outputError{err}
}

// outputError is a failure to write the output rather than to read the
// input, so that callers name the output (its own error does) and not the
// input.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }

// groupWriter returns what writes each dump's groups to w in format f, or
// formats.WriteGroups' refusal of f, which names the formats it writes.
func groupWriter(w io.Writer, f output.Format) (func(*stack.Dump, []*stack.Group) error, error) {
	if !output.CanGroup(f) {
		return nil, formats.WriteGroups(w, f, nil, nil)
	}
	return func(d *stack.Dump, groups []*stack.Group) error { return formats.WriteGroups(w, f, d, groups) }, nil
}
