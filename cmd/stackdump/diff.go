package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// exitGrowth is diff's exit status when a group grew past --fail-on-growth.
const exitGrowth = 3

type diffOptions struct {
	by           string
	quiet        bool
	format       string
	output       string
	failOnGrowth int64
}

func newDiffCommand() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two dumps group by group: what is new, gone, grown or shrunk",
		Long: `diff groups the routines of two dumps by stack (see --by) and reports the
groups that are new, gone, grown or shrunk, with their counts, deltas and
percentages, largest change first, and the change of the total.

OLD and NEW may be of any format stackdump reads, and of different ones: at
--by stack and --by func, groups of a debug=2 dump, a debug=1 dump and a
pprof profile of the same code match. Either may be "-" for standard input.
When a file holds several dumps, the first one is compared, and a warning on
standard error says how many the file holds.

With --fail-on-growth N, diff exits with status 3 when any group grew by N
routines or more (a new group grew from 0), so that CI or a cron job can
alert on a leak.`,
		Example: `  stackdump diff before.txt after.txt
  stackdump diff --by func v1.debug2.txt v2.debug2.txt
  curl -s host:6060/debug/pprof/goroutine?debug=1 | stackdump diff baseline.txt -
  stackdump diff --format json --fail-on-growth 100 old.pb.gz new.pb.gz`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.format, "format", "", "output format: text or json (default from -o, else text)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.Int64Var(&o.failOnGrowth, "fail-on-growth", 0, "exit with status 3 when a group grew by `N` or more routines (0: never)")
	return cmd
}

func runDiff(cmd *cobra.Command, oldPath, newPath string, o diffOptions) error {
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return err
	}
	out := o.output
	if out == "-" {
		out = ""
	}
	outOpts := output.Options{Allowed: []output.Format{output.Text, output.JSON}}
	if cmd.Flags().Changed("format") { // else the output name's, else text
		outOpts.Format = output.Format(o.format)
	}
	f, comp, err := output.For(out, outOpts)
	if err != nil {
		return err
	}
	write, err := diffWriter(string(f))
	if err != nil {
		return err
	}
	if o.failOnGrowth < 0 {
		return fmt.Errorf("--fail-on-growth %d: want a positive count, or 0 for never", o.failOnGrowth)
	}
	if oldPath == "-" && newPath == "-" {
		return errors.New("only one of OLD and NEW can be standard input")
	}
	if err := checkOutput(o.output); err != nil {
		return err
	}
	opts := dedupe.Options{By: by}
	oldInfo, oldGroups, err := groupFile(cmd, oldPath, opts, o.quiet)
	if err != nil {
		return err
	}
	newInfo, newGroups, err := groupFile(cmd, newPath, opts, o.quiet)
	if err != nil {
		return err
	}
	rep := dedupe.DiffReport{Result: dedupe.Diff(oldGroups, newGroups), By: by, Old: oldInfo, New: newInfo}
	err = writeTo(out, cmd.OutOrStdout(), comp, func(w io.Writer) error { return write(w, rep) })
	if err != nil {
		return err
	}
	return growthError(rep.Result, o.failOnGrowth)
}

func diffWriter(format string) (func(io.Writer, dedupe.DiffReport) error, error) {
	switch format {
	case "text":
		return dedupe.WriteDiffText, nil
	case "json":
		return dedupe.WriteDiffJSON, nil
	}
	return nil, fmt.Errorf("unknown diff format %q (want text or json)", format)
}

// groupFile reads the first dump of a file (or standard input for "-")
// and groups it.
func groupFile(cmd *cobra.Command, name string, opts dedupe.Options, quiet bool) (dedupe.DumpInfo, []*stack.Group, error) {
	src, count, closeIn, err := openTracked(cmd, name, quiet)
	if err != nil {
		return dedupe.DumpInfo{}, nil, err
	}
	defer closeIn()
	rd := formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true, Progress: count})
	d, groups, err := dedupe.GroupNext(rd, opts, func(pe *stack.ParseError) {
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", displayName(name), pe)
	})
	if err == io.EOF {
		return dedupe.DumpInfo{}, nil, fmt.Errorf("%s: no dump found", displayName(name))
	}
	if err != nil {
		return dedupe.DumpInfo{}, nil, fmt.Errorf("%s: %w", displayName(name), err)
	}
	if d.Truncated {
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: the dump is truncated; counts may be low\n", displayName(name))
	}
	warnMoreDumps(cmd.ErrOrStderr(), displayName(name), rd, d.Truncated)
	return dedupe.DumpInfo{Name: name, Kind: d.Source.Kind}, groups, nil
}

// warnMoreDumps counts the dumps rd holds after the first, which diff
// does not compare, and says so on w when there are any: "A holds 3
// dumps; diff compares the first". A read error past the first dump ends
// the count and is named, as the first dump is still compared; one that
// cut the first dump (truncated) was already reported.
func warnMoreDumps(w io.Writer, name string, rd *formats.Reader, truncated bool) {
	n := 1
	var err error
	for {
		if _, err = rd.Next(); err != nil {
			break
		}
		n++
	}
	switch {
	case err == io.EOF && n > 1:
		fmt.Fprintf(w, "stackdump: warning: %s holds %s; diff compares the first\n", name, words.Count(n, "dump"))
	case err != io.EOF && n > 1:
		fmt.Fprintf(w, "stackdump: warning: %s holds at least %s, then %v; diff compares the first\n", name, words.Count(n, "dump"), err)
	case err != io.EOF && !truncated:
		fmt.Fprintf(w, "stackdump: warning: %s: after the first dump, %v; diff compares the first\n", name, err)
	}
}

// growthError is the exit status 3 error when a group grew by limit or
// more; nil when limit is 0 or nothing grew that much.
func growthError(res dedupe.DiffResult, limit int64) error {
	if limit <= 0 {
		return nil
	}
	grown := res.GrownBy(limit)
	if len(grown) == 0 {
		return nil
	}
	top := grown[0]
	where := "?"
	if top.Group.Sample != nil {
		if f := dedupe.NameFrame(top.Group.Sample.Stack); f != nil {
			where = f.Func
		}
	}
	return exitError{code: exitGrowth, err: fmt.Errorf("%d group(s) grew by %d or more; the largest: %s %+d at %s (key %s)",
		len(grown), limit, top.Change, top.Delta, where, top.Key)}
}
