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
}

func newConvertCommand() *cobra.Command {
	var o convertOptions
	cmd := &cobra.Command{
		Use:   "convert [FILE|-]",
		Short: "Read a dump in any supported format and write it as text or JSON",
		Long: `convert reads a goroutine or thread dump (sniffed: Go traceback, debug=1,
pprof protobuf, stackdump JSON, JVM thread dumps; gzip or zstd compressed or
not) and writes it in the chosen format. With no FILE, or FILE "-", it reads
standard input; with no -o it writes standard output. Format and compression
default from the -o file name's extension (.json, .txt, .pb, .gz, .zst).
Warnings (truncation, skipped lines with their numbers) go to standard error.

With --dedupe, routines with the same stack are written once, as a counted
group with their ids, states and labels (formats text, json and debug1).
--by sets how alike stacks must be: exact (state, frames and arguments),
stack (functions, files and lines; the default) or func (function names
only, so two builds with shifted lines still match). --by implies --dedupe.`,
		Example: `  stackdump convert goroutines.txt -o goroutines.json.gz
  curl -s localhost:6060/debug/pprof/goroutine?debug=2 | stackdump convert --format json
  stackdump convert crash.log --format text --compress zstd -o crash.txt.zst
  stackdump convert --dedupe goroutines.txt
  stackdump convert --dedupe --by func --format json goroutines.txt -o groups.json`,
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
	addExeFlag(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on standard error")
	f.StringVar(&o.format, "format", "", "output format: text, json, debug1, pprof or folded (default from -o, else text)")
	f.StringVar(&o.compress, "compress", "", "compression: none, gzip or zstd (default from -o)")
	f.BoolVar(&o.dedupe, "dedupe", false, "write counted groups of identical stacks (formats text, json, debug1)")
	f.StringVar(&o.by, "by", "stack", "with --dedupe, how alike grouped stacks are: exact, stack or func")
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
		written, err := p.run(formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true, Progress: count}), w)
		var oe outputError
		if err != nil && !errors.As(err, &oe) {
			err = fmt.Errorf("%s: %w", displayName(in), err)
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
