package report

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// Defaults for the zero values of Options.
const (
	// DefaultMaxGroups is how many groups per dump the page carries when
	// Options.MaxGroups is 0.
	DefaultMaxGroups = 20000
	// DefaultMaxIDs is how many member ids per group the page lists when
	// Options.MaxIDs is 0.
	DefaultMaxIDs = 100
	// DefaultSeries is how many groups the timeline follows when
	// Options.Series is 0.
	DefaultSeries = 8
)

// Input is one dump of a report and its groups.
type Input struct {
	// Name labels the dump in the page, usually its file name. Empty means
	// the dump's Source.Target, else "dump N".
	Name string
	// Dump is the dump: its source, preamble, truncation, warnings and
	// total. Its Routines are only used when Groups is nil.
	Dump *stack.Dump
	// Groups are the dump's groups, largest first, as package dedupe
	// builds them. Nil means group Dump.Routines with Options.Group.
	Groups []*stack.Group
	// Culprit is the routine that crashed when the dump comes from a
	// crash (see gotext.CrashWatch); nil when unknown. [Read] sets it;
	// when Groups is nil it is found in Dump.Routines.
	Culprit *stack.Routine
	// ModTime is the modification time of the file the dump was read
	// from; the timeline's axis shows it for a dump that records no
	// capture time. Zero when unknown.
	ModTime time.Time
	// Locks is the lock analysis of a JVM dump (analyze.Locks): its
	// deadlocks and the locks threads wait for. [Read] sets it; when nil,
	// a JVM dump's Dump.Routines are analysed.
	Locks *analyze.LockReport
	// Summary is the dump's analysis (analyze.Summary): its findings
	// with their evidence and its Go lock table, shown as stackdump
	// analyze shows them. [Read] sets it; when nil, Dump.Routines are
	// analysed (in input order, so that growth across them is evidence).
	Summary *analyze.Summary
}

// Options configure a report.
type Options struct {
	// Title is the page title; empty means "stackdump report: NAME" after
	// the first input (and the number of inputs when there are several).
	Title string
	// Group configures grouping of inputs that come without groups.
	Group dedupe.Options
	// MaxGroups caps the groups per dump the page carries, largest first;
	// the others are counted in the summary. 0 means DefaultMaxGroups.
	MaxGroups int
	// MaxIDs caps the member and parent ids listed per group; 0 means
	// DefaultMaxIDs.
	MaxIDs int
	// Series is how many groups the timeline of several dumps follows, the
	// largest first; 0 means DefaultSeries.
	Series int
	// Generated is shown as the time the report was made; zero omits it,
	// which keeps the output byte for byte the same for the same inputs.
	Generated time.Time
	// Timeline is the analysis of the inputs as snapshots of one process
	// (analyze.Timeline, given each dump by ReadOptions.Timeline): its
	// findings — routines stuck across the dumps, deadlocks, growth — are
	// shown with the last dump. When nil and the inputs are several dumps
	// with their Routines, they are analysed so here.
	Timeline *analyze.TimelineReport
}

// Write writes the HTML page of inputs to w: one self-contained document,
// written through one buffer. Inputs are shown in the order given, which
// is the timeline's order when there are several.
func Write(w io.Writer, inputs []Input, opts Options) error {
	if len(inputs) == 0 {
		return ErrNoInput
	}
	for i, in := range inputs {
		if in.Dump == nil {
			return fmt.Errorf("report: input %d (%q) has no dump", i+1, in.Name)
		}
	}
	opts = opts.withDefaults()
	doc := buildDoc(inputs, opts)
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := writePage(bw, doc); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxGroups <= 0 {
		o.MaxGroups = DefaultMaxGroups
	}
	if o.MaxIDs <= 0 {
		o.MaxIDs = DefaultMaxIDs
	}
	if o.Series <= 0 {
		o.Series = DefaultSeries
	}
	return o
}
