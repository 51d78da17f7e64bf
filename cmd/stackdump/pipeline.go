package main

import (
	"fmt"
	"io"
	"iter"
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
		return fmt.Errorf("--dedupe writes %s, not %s", words.Or(formats.GroupedFormats), p.format)
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

// dumpSource is what a pipeline reads: a *formats.Reader, or a capture's
// *remote.Document.
type dumpSource interface {
	Next() (*formats.Dump, error)
	Routines() iter.Seq2[*formats.Routine, error]
}

// run streams every dump of rd into w. It returns the dumps it wrote.
func (p pipeline) run(rd dumpSource, w io.Writer) ([]dumpResult, error) {
	var enc formats.Encoder
	if !p.grouped {
		var err error
		if enc, err = formats.NewEncoder(w, p.format); err != nil {
			return nil, err
		}
	}
	var results []dumpResult
	for {
		d, err := rd.Next()
		if err == io.EOF {
			if len(results) == 0 {
				return nil, fmt.Errorf("no dump found")
			}
			return results, nil
		}
		if err != nil {
			return results, err
		}
		if p.source != nil {
			p.source(&d.Source)
		}
		if enc != nil {
			if err := enc.BeginDump(d); err != nil {
				return results, outputError{err}
			}
		}
		var leaked int64
		var g *dedupe.Grouper
		if p.grouped || p.summarize {
			g = dedupe.NewGrouper(dedupe.Options{By: p.by})
		}
		for r, err := range rd.Routines() {
			if err != nil {
				if pe, ok := err.(*formats.ParseError); ok {
					if p.onWarning != nil {
						p.onWarning(pe)
					}
					continue
				}
				return results, err
			}
			if r == nil {
				continue
			}
			if g != nil {
				g.Add(r)
			}
			if r.Leaked {
				leaked += r.Count
			}
			if p.routines != nil {
				p.routines.Add(r.Count)
			}
			if enc != nil {
				if err := enc.WriteRoutine(r); err != nil {
					return results, outputError{err}
				}
			}
		}
		var groups []*formats.Group
		if g != nil {
			groups = g.Groups()
		}
		if enc != nil {
			err = enc.EndDump(d)
		} else {
			err = formats.WriteGroups(w, p.format, d, groups)
		}
		if err != nil {
			return results, outputError{err}
		}
		results = append(results, dumpResult{dump: d, groups: groups, by: p.by, leaked: leaked})
	}
}

// outputError is a failure to write the output rather than to read the
// input, so that callers name the output (its own error does) and not the
// input.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }
