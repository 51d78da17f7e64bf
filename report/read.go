package report

import (
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// ReadOptions configure Read.
type ReadOptions struct {
	// Format configures the reader (format, shared Table, limits).
	Format formats.ReadOptions
	// Group configures grouping.
	Group dedupe.Options
	// OnWarning, when not nil, sees each parse error as it is met; they
	// are also kept as the dumps' Warnings.
	OnWarning func(*stack.ParseError)
	// Analysis configures the analysis of each dump (Input.Summary), as
	// stackdump analyze makes it: give the calls of Read for one series
	// of dumps one Analysis.History, so that growth across them is
	// evidence.
	Analysis analyze.Options
	// Timeline, when not nil, is given each dump as its next snapshot as
	// its routines stream by: what did not move across the dumps (stuck,
	// deadlocked) and what grew, for Options.Timeline.
	Timeline *analyze.Timeline
}

// Read reads every dump of r and groups each one as its routines stream
// by, without keeping them: one Input per dump, in input order. The inputs
// are named name, or "name #N" when r holds several dumps. On an error
// that stops reading, the dumps read until then are returned with it,
// the one it cut short included (truncated, as far as it was read).
func Read(r io.Reader, name string, opts ReadOptions) ([]Input, error) {
	return ReadFrom(formats.NewReader(r, opts.Format), name, opts)
}

// ReadFrom is [Read] from a source of dumps already open (opts.Format
// unused): a formats.Reader, a remote.Document, or a stage in front of one
// (package filter's Source).
func ReadFrom(rd stack.DumpSource, name string, opts ReadOptions) ([]Input, error) {
	var inputs []Input
	for {
		in, err := readInput(rd, opts)
		if err == io.EOF {
			break
		}
		if in.Dump != nil {
			inputs = append(inputs, in)
		}
		if err != nil {
			return nameInputs(inputs, name), fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoDump)
	}
	return nameInputs(inputs, name), nil
}

// readInput reads the next dump of rd, grouping its routines and
// watching for the one that crashed and for JVM threads with lock lines
// as they stream by: a formats.Pipeline through the grouping stage into
// the crash and lock watches. On an error that cut
// the dump short, what was read of it is returned with the error.
func readInput(rd stack.DumpSource, opts ReadOptions) (Input, error) {
	st := &analysisStage{a: analyze.NewAnalyzer(opts.Analysis), tl: opts.Timeline}
	g := dedupe.GroupThrough(st, opts.Group)
	p := stack.Pipeline{Source: rd, Encoder: g, OnWarning: opts.OnWarning}
	d, err := p.Next(context.Background())
	if d == nil {
		return Input{}, err
	}
	st.end(d)
	groups := g.Groups()
	in := Input{Dump: d, Groups: groups, Culprit: st.crash.Culprit(gotext.CrashOf(d.Preamble))}
	if isJVM(d.Source.Kind) {
		in.Locks = st.locks.Report(d)
	}
	in.Summary = st.a.Summary(d, groups, "")
	return in, err
}

// analysisStage sees a dump's routines as they stream by: the crash and
// lock watches, the analyzer of its findings, and the timeline of the
// series when there is one.
type analysisStage struct {
	crash gotext.CrashWatch
	locks analyze.LockWatch
	a     *analyze.Analyzer
	tl    *analyze.Timeline
	open  bool // the timeline's snapshot is begun and not ended
}

func (s *analysisStage) BeginDump(d *stack.Dump) error {
	if s.tl != nil {
		s.tl.BeginSnapshot("", d)
		s.open = true
	}
	return nil
}

func (s *analysisStage) WriteRoutine(r *stack.Routine) error {
	s.crash.Add(r)
	s.locks.Add(r)
	s.a.Add(r)
	if s.tl != nil {
		s.tl.AddRoutine(r)
	}
	return nil
}

func (s *analysisStage) EndDump(d *stack.Dump) error {
	s.end(d)
	return nil
}

// end ends the timeline's snapshot of d, also of a dump an error cut short.
func (s *analysisStage) end(d *stack.Dump) {
	if s.open {
		s.tl.EndSnapshot(d)
		s.open = false
	}
}

func nameInputs(inputs []Input, name string) []Input {
	for i := range inputs {
		inputs[i].Name = name
		if len(inputs) > 1 {
			inputs[i].Name = fmt.Sprintf("%s #%d", name, i+1)
		}
	}
	return inputs
}
