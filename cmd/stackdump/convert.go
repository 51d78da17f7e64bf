package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

type convertOptions struct {
	quiet    bool
	output   string
	format   string
	compress string
	dedupe   bool   // write counted groups instead of routines
	by       string // similarity level of --dedupe
	filters  filterFlags
}

func newConvertCommand() *cobra.Command {
	var o convertOptions
	cmd := &cobra.Command{
		Use:  "convert [FILE|-]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := "-"
			if len(args) == 1 {
				in = args[0]
			}
			if cmd.Flags().Changed("by") {
				o.dedupe = true
			}
			return runConvert(cmd, in, o)
		},
	}
	setHelp(cmd, convertHelp)
	cmd.Long += "\n\n" + filterHelp
	addExeFlag(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVar(&o.format, "format", "", "output format: text, json, debug1, pprof or folded (default from -o, else text)")
	f.StringVar(&o.compress, "compress", "", "compression: none, gzip or zstd (default from -o)")
	f.BoolVar(&o.dedupe, "dedupe", false, "write counted groups of identical stacks (formats text, json, debug1)")
	f.StringVar(&o.by, "by", "stack", "with --dedupe, how alike grouped stacks are: exact, stack or func")
	o.filters.add(cmd)
	return cmd
}

func runConvert(cmd *cobra.Command, in string, o convertOptions) error {
	format, comp, err := output.For(o.output, output.Options{Format: output.Format(o.format), Compression: output.Compression(o.compress)})
	if err != nil {
		return err
	}
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return err
	}
	flt, err := o.filters.filter()
	if err != nil {
		return err
	}
	p := pipeline{format: format, grouped: o.dedupe, by: by, onWarning: func(pe *stack.ParseError) {
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", displayName(in), pe)
	}}
	if err := p.check(); err != nil {
		return err
	}
	src, count, closeIn, err := openTracked(cmd, in, o.quiet)
	if err != nil {
		return err
	}
	defer closeIn()
	out := o.output
	if out == "-" {
		out = ""
	}
	return writeTo(out, cmd.OutOrStdout(), comp, func(w io.Writer) error {
		rd, filtered := filterInput(flt, formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true, Progress: count}))
		written, err := p.run(rd, w)
		filtered.note(cmd.ErrOrStderr(), displayName(in))
		var oe outputError
		if err != nil && !errors.As(err, &oe) {
			err = fmt.Errorf("%s: %w", displayName(in), err)
			if len(written) > 0 && cutInput(err) {
				return keepCut(cmd.ErrOrStderr(), err) // the rule for cut input (inputcut.go)
			}
			if len(written) > 0 {
				// Bad input: the dumps read before it (the last one
				// marked truncated) are the result to keep.
				return keptError{err}
			}
		}
		return err
	})
}

// displayName is how messages name an input: "standard input" for "-",
// else its file name.
func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// openInput opens a file, or standard input for "-".
func openInput(cmd *cobra.Command, name string) (io.Reader, func(), error) {
	if name == "-" {
		return cmd.InOrStdin(), func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
