package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/filter"
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
	filters      filterFlags
}

func newDiffCommand() *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:  "diff OLD NEW",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd, args[0], args[1], o)
		},
	}
	setHelp(cmd, diffHelp)
	cmd.Long += "\n\n" + filterHelp
	f := cmd.Flags()
	f.StringVar(&o.by, "by", "stack", "similarity of grouped stacks: exact, stack or func")
	f.StringVar(&o.format, "format", "", "output format: text or json (default from -o, else text)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.Int64Var(&o.failOnGrowth, "fail-on-growth", 0, "exit with status 3 when a group grew by `N` or more routines (0: never)")
	o.filters.add(cmd)
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
	flt, err := o.filters.filter()
	if err != nil {
		return err
	}
	opts := dedupe.Options{By: by}
	// Damage past the first dump of an input is reported after the diff
	// of the first dumps is written (the rule for bad input, inputcut.go).
	var damaged []error
	oldInfo, oldGroups, err := groupFile(cmd, oldPath, opts, flt, o.quiet)
	if err = damage(err, &damaged); err != nil {
		return err
	}
	newInfo, newGroups, err := groupFile(cmd, newPath, opts, flt, o.quiet)
	if err = damage(err, &damaged); err != nil {
		return err
	}
	if jvmKind(oldInfo.Kind) != jvmKind(newInfo.Kind) {
		// Goroutines and JVM threads share no stack: every group would
		// be "new" and "gone", a diff that says nothing true.
		return fmt.Errorf("%s is %s and %s is %s: a Go process's goroutines and a JVM's threads have no stack in common; diff two dumps of the same kind of process", displayName(oldPath), processKind(oldInfo.Kind), displayName(newPath), processKind(newInfo.Kind))
	}
	rep := dedupe.DiffReport{Result: dedupe.Diff(oldGroups, newGroups), By: by, Old: oldInfo, New: newInfo}
	err = writeTo(out, cmd.OutOrStdout(), comp, func(w io.Writer) error { return write(w, rep) })
	if err != nil {
		return err
	}
	if len(damaged) > 0 {
		return errors.Join(damaged...)
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
func groupFile(cmd *cobra.Command, name string, opts dedupe.Options, flt *filter.Filter, quiet bool) (dedupe.DumpInfo, []*stack.Group, error) {
	src, count, closeIn, err := openTracked(cmd, name, quiet)
	if err != nil {
		return dedupe.DumpInfo{}, nil, err
	}
	defer closeIn()
	rd, filtered := filterInput(flt, formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true, Progress: count}))
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
	filtered.note(cmd.ErrOrStderr(), displayName(name))
	info := dedupe.DumpInfo{Name: name, Kind: d.Source.Kind}
	if err := warnMoreDumps(cmd.ErrOrStderr(), displayName(name), rd, d.Truncated); err != nil {
		return info, groups, damagedInput{err}
	}
	return info, groups, nil
}

// jvmKind reports whether k is a JVM thread dump's.
func jvmKind(k stack.Kind) bool { return k == stack.KindJVMText || k == stack.KindJVMJSON }

// processKind names what a dump of kind k is of, for messages.
func processKind(k stack.Kind) string {
	if jvmKind(k) {
		return "a JVM thread dump (" + string(k) + ")"
	}
	return "a Go goroutine dump (" + string(k) + ")"
}

// damagedInput is an input's damage found after the dump diff compares:
// the diff is written, then the command fails with it.
type damagedInput struct{ err error }

func (e damagedInput) Error() string { return e.err.Error() }
func (e damagedInput) Unwrap() error { return e.err }

// damage moves err to *damaged when it is a damagedInput, and returns
// err otherwise.
func damage(err error, damaged *[]error) error {
	var d damagedInput
	if errors.As(err, &d) {
		*damaged = append(*damaged, d.err)
		return nil
	}
	return err
}

// warnMoreDumps counts the dumps rd holds after the first, which diff
// does not compare, and says so on w when there are any: "A holds 3
// dumps; diff compares the first". A read error past the first dump ends
// the count and is named, as the first dump is still compared; one that
// cut the first dump (truncated) was already reported. Damage (a read
// error that is not the input's end, inputcut.go) is returned, naming
// the input.
func warnMoreDumps(w io.Writer, name string, rd stack.DumpSource, truncated bool) error {
	n := 1
	var err error
	for {
		if _, err = rd.Next(); err != nil {
			break
		}
		n++
	}
	if err != io.EOF && !cutInput(err) {
		return fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case err == io.EOF && n > 1:
		fmt.Fprintf(w, "stackdump: warning: %s holds %s; diff compares the first\n", name, words.Count(n, "dump"))
	case err != io.EOF && n > 1:
		fmt.Fprintf(w, "stackdump: warning: %s holds at least %s, then %v; diff compares the first\n", name, words.Count(n, "dump"), err)
	case err != io.EOF && !truncated:
		fmt.Fprintf(w, "stackdump: warning: %s: after the first dump, %v; diff compares the first\n", name, err)
	}
	return nil
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
