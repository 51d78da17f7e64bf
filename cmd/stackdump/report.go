package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
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
}

func newReportCommand() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Write dumps as one self-contained HTML page: groups, states, flame graph, timeline",
		Long: `report reads one or more dumps (any format stackdump reads; "-" is standard
input), groups each one by stack (see --by) and writes a single HTML file that
opens in a browser from disk and loads nothing from the network.

The page shows a summary of the dump (source, totals, truncation, warnings),
a chart of states, a flame graph of the groups' stacks, the groups themselves,
largest first, with their stacks, states, wait times, labels and links to the
group of their creator, and a filter box. Several dumps (several FILEs, or a
file holding several dumps) add a timeline of the largest groups' counts, in
the order given, and a picker to switch between the dumps.`,
		Example: `  stackdump report goroutines.txt -o report.html
  stackdump report before.txt during.txt after.txt -o leak.html
  curl -s localhost:6060/debug/pprof/goroutine?debug=2 | stackdump report - -o now.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, o)
		},
	}
	addExeFlag(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.title, "title", "", "page title (default from the first file's name)")
	f.IntVar(&o.maxGroups, "max-groups", report.DefaultMaxGroups, "groups per dump the page lists, largest first; the rest are counted")
	f.IntVar(&o.series, "series", report.DefaultSeries, "groups the timeline of several dumps follows")
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
	table := stack.NewTable() // frames shared by every dump
	var inputs []report.Input
	var readErr error
	for _, name := range files {
		in, err := readReportInput(cmd, name, by, table, o.quiet)
		inputs = append(inputs, in...)
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
	if err := writeTo(path, cmd.OutOrStdout(), comp, func(w io.Writer) error {
		return report.Write(w, inputs, opts)
	}); err != nil {
		return err
	}
	return readErr
}

// readReportInput reads and groups every dump of one file.
func readReportInput(cmd *cobra.Command, name string, by dedupe.By, table *stack.Table, quiet bool) ([]report.Input, error) {
	src, count, closeIn, err := openTracked(cmd, name, quiet)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	inputs, err := report.Read(src, displayName(name), report.ReadOptions{
		Format: formats.ReadOptions{Table: table, Progress: count},
		Group:  dedupe.Options{By: by},
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
