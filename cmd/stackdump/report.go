package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/report"
	"github.com/stackdump/stackdump/stack"
)

type reportOptions struct {
	quiet     bool
	output    string
	by        string
	title     string
	maxGroups int
	series    int
	filters   filterFlags
}

func newReportCommand() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:  "report FILE...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, o)
		},
	}
	setHelp(cmd, reportHelp)
	cmd.Long += "\n\n" + filterHelp
	addExeFlag(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", defaultReport, "write the page to `FILE` (atomically); - writes standard output")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.title, "title", "", "page title (default from the first file's name)")
	f.IntVar(&o.maxGroups, "max-groups", report.DefaultMaxGroups, "groups per dump the page lists, largest first; the rest are counted")
	f.IntVar(&o.series, "series", report.DefaultSeries, "groups the timeline of several dumps follows")
	o.filters.add(cmd)
	return cmd
}

func runReport(cmd *cobra.Command, files []string, o reportOptions) error {
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return err
	}
	if o.maxGroups <= 0 || o.series <= 0 {
		return errors.New("--max-groups and --series must be positive")
	}
	stdin := 0
	for _, f := range files {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return errors.New(`standard input ("-") can be read only once`)
	}
	if err := checkOutput(o.output); err != nil {
		return err
	}
	flt, err := o.filters.filter()
	if err != nil {
		return err
	}
	table := stack.NewTable() // frames shared by every dump
	// The dumps are analysed as analyze analyses them, in the order
	// given (growth across them is evidence), and as a series by the
	// timeline (what did not move, what grew).
	series := reportSeries{history: analyze.NewLeakHistory(), timeline: analyze.NewTimeline(analyze.TimelineOptions{By: by})}
	var inputs []report.Input
	var readErr error
	for _, name := range files {
		in, err := readReportInput(cmd, name, by, table, flt, series, o.quiet)
		inputs = append(inputs, in...)
		if len(in) > 0 {
			err = keepCut(cmd.ErrOrStderr(), err) // the rule for cut input (inputcut.go)
		}
		if err != nil {
			// Write the page of what was read before the error, then fail.
			readErr = err
			break
		}
	}
	if len(inputs) == 0 {
		return readErr
	}
	path := o.output
	if path == "-" {
		path = ""
	}
	_, comp, err := output.For(path, output.Options{Allowed: []output.Format{output.HTML}})
	if err != nil {
		return err
	}
	opts := report.Options{Title: o.title, MaxGroups: o.maxGroups, Series: o.series, Generated: time.Now()}
	if len(inputs) > 1 {
		opts.Timeline = series.timeline.Report()
	}
	var written atomic.Int64
	if err := writeToCounting(path, cmd.OutOrStdout(), comp, &written, func(w io.Writer) error {
		return report.Write(w, inputs, opts)
	}); err != nil {
		return err
	}
	if path != "" && !o.quiet {
		where := path
		if abs, err := filepath.Abs(path); err == nil {
			where = abs
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: wrote %s (%s): open it in a browser\n", where, humanBytes(written.Load()))
	}
	return readErr
}

// defaultReport is where report writes without -o: a file, not HTML
// poured into the terminal.
const defaultReport = "report.html"

// reportSeries is what the dumps of a report share: the history that
// makes growth across them evidence, and their timeline.
type reportSeries struct {
	history  *analyze.LeakHistory
	timeline *analyze.Timeline
}

// readReportInput reads, groups and analyses every dump of one file.
func readReportInput(cmd *cobra.Command, name string, by dedupe.By, table *stack.Table, flt *filter.Filter, series reportSeries, quiet bool) ([]report.Input, error) {
	src, count, closeIn, err := openTracked(cmd, name, quiet)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	rd, filtered := filterInput(flt, formats.NewReader(src, formats.ReadOptions{Table: table, Progress: count}))
	defer filtered.note(cmd.ErrOrStderr(), displayName(name))
	inputs, err := report.ReadFrom(rd, displayName(name), report.ReadOptions{
		Group:    dedupe.Options{By: by},
		Analysis: analyze.Options{History: series.history},
		Timeline: series.timeline,
		OnWarning: func(pe *stack.ParseError) {
			fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", displayName(name), pe)
		},
	})
	// The timeline's axis shows the file's time for dumps without one.
	if name != "-" {
		if fi, serr := os.Stat(name); serr == nil && fi.Mode().IsRegular() {
			for i := range inputs {
				inputs[i].ModTime = fi.ModTime()
			}
		}
	}
	return inputs, err
}
