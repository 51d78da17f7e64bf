package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
)

type analyzeOptions struct {
	json           bool
	quiet          bool
	output         string
	top            int
	by             string
	color          string
	leakMinCount   int
	leakMinParents int
	leakMinWait    int
	filters        filterFlags
}

func newAnalyzeCommand() *cobra.Command {
	var o analyzeOptions
	cmd := &cobra.Command{
		Use:  "analyze FILE...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAnalyze(cmd, args, o)
		},
	}
	setHelp(cmd, analyzeHelp)
	cmd.Long += "\n\n" + filterHelp
	addExeFlag(cmd)
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "write the analysis as JSON (schema stackdump-analysis/v1)")
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output: .txt, or .json for JSON; .gz or .zst compress")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.IntVar(&o.top, "top", analyze.DefaultTop, "rows per section")
	f.StringVar(&o.by, "by", "stack", "group routines by: exact, stack or func")
	f.StringVar(&o.color, "color", "auto", "color the text: auto (on a terminal, unless NO_COLOR is set), always or never")
	f.IntVar(&o.leakMinCount, "leak-min-count", analyze.DefaultLeakMinCount, "least goroutines parked at one place for a leak suspect")
	f.IntVar(&o.leakMinParents, "leak-min-parents", analyze.DefaultLeakMinParents, "distinct parents that flag a leak suspect by themselves")
	f.IntVar(&o.leakMinWait, "leak-min-wait", analyze.DefaultLeakMinWait, "minutes blocked that count as evidence of a leak")
	o.filters.add(cmd)
	return cmd
}

func (o analyzeOptions) summaryOptions() (analyze.StreamOptions, error) {
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return analyze.StreamOptions{}, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"top", o.top}, {"leak-min-count", o.leakMinCount}, {"leak-min-parents", o.leakMinParents}, {"leak-min-wait", o.leakMinWait}} {
		// analyze.Options reads 0 as its default: refuse it here rather
		// than run with another value than the one asked for.
		if f.v < 1 {
			return analyze.StreamOptions{}, fmt.Errorf("--%s %d: want 1 or more", f.name, f.v)
		}
	}
	return analyze.StreamOptions{
		Options: analyze.Options{
			Top:            o.top,
			LeakMinCount:   o.leakMinCount,
			LeakMinParents: o.leakMinParents,
			LeakMinWait:    o.leakMinWait,
		},
		Group: dedupe.Options{By: by},
	}, nil
}

func runAnalyze(cmd *cobra.Command, files []string, o analyzeOptions) error {
	opts, err := o.summaryOptions()
	if err != nil {
		return err
	}
	flt, err := o.filters.filter()
	if err != nil {
		return err
	}
	path := o.output
	if path == "-" {
		path = ""
	}
	out := output.Options{Allowed: []output.Format{output.Text, output.JSON}}
	if o.json {
		out.Format = output.JSON
	}
	f, comp, err := output.For(path, out)
	if err != nil {
		return err
	}
	color := false
	if path == "" {
		if color, err = useColor(o.color, cmd.OutOrStdout()); err != nil {
			return err
		}
	}
	write := func(summaries []*analyze.Summary) error {
		return writeTo(path, cmd.OutOrStdout(), comp, func(w io.Writer) error {
			return writeSummaries(w, summaries, f == output.JSON, color)
		})
	}
	// The dumps are taken in the order given: a leak suspect's growth
	// across the earlier dumps of the same target is evidence.
	opts.History = analyze.NewLeakHistory()
	var summaries []*analyze.Summary
	for _, name := range files {
		s, err := summarizeFile(cmd, name, opts, flt, o.quiet)
		summaries = append(summaries, s...)
		if len(s) > 0 {
			err = keepCut(cmd.ErrOrStderr(), err) // the rule for cut input (inputcut.go)
		}
		if err != nil {
			// Show what was read before the error, then fail.
			write(summaries)
			return err
		}
	}
	return write(summaries)
}

// summarizeFile summarises every dump of one file ("-": standard input).
func summarizeFile(cmd *cobra.Command, name string, opts analyze.StreamOptions, flt *filter.Filter, quiet bool) ([]*analyze.Summary, error) {
	src, count, closeIn, err := openTracked(cmd, name, quiet)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	opts.Name = displayName(name)
	rd, filtered := filterInput(flt, formats.NewReader(src, formats.ReadOptions{Progress: count}))
	defer filtered.note(cmd.ErrOrStderr(), opts.Name)
	var out []*analyze.Summary
	for {
		s, _, err := analyze.SummarizeNext(rd, opts)
		if s != nil {
			out = append(out, s)
		}
		if err == io.EOF {
			if len(out) == 0 {
				return nil, fmt.Errorf("%s: no dump found", opts.Name)
			}
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", opts.Name, err)
		}
	}
}

func writeSummaries(w io.Writer, summaries []*analyze.Summary, asJSON, color bool) error {
	var b bytes.Buffer
	if asJSON {
		if err := analyze.WriteJSON(&b, summaries...); err != nil {
			return err
		}
	} else {
		for i, s := range summaries {
			if i > 0 {
				b.WriteString("\n")
			}
			if err := analyze.WriteText(&b, s, analyze.TextOptions{Color: color}); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// useColor settles --color: auto colors a terminal unless NO_COLOR is set
// (no-color.org) or TERM is "dumb".
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
			return false, nil
		}
		return isTerminal(w), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", mode)
}
