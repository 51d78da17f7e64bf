package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
)

type convertOptions struct {
	output   string
	format   string
	compress string
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
Warnings (truncation, skipped lines with their numbers) go to standard error.`,
		Example: `  stackdump convert goroutines.txt -o goroutines.json.gz
  curl -s localhost:6060/debug/pprof/goroutine?debug=2 | stackdump convert --format json
  stackdump convert crash.log --format text --compress zstd -o crash.txt.zst`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := "-"
			if len(args) == 1 {
				in = args[0]
			}
			return runConvert(cmd, in, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` (atomically) instead of standard output")
	f.StringVar(&o.format, "format", "", "output format: text, json, debug1, pprof or folded (default from -o, else text)")
	f.StringVar(&o.compress, "compress", "", "compression: none, gzip or zstd (default from -o)")
	return cmd
}

func runConvert(cmd *cobra.Command, in string, o convertOptions) error {
	src, closeIn, err := openInput(cmd, in)
	if err != nil {
		return err
	}
	defer closeIn()
	format, comp, err := outputFormat(o.output, o.format, o.compress)
	if err != nil {
		return err
	}
	return writeOutput(cmd, o.output, comp, func(w io.Writer) error {
		enc, err := formats.NewEncoder(w, format)
		if err != nil {
			return err
		}
		rd := formats.NewReader(src, formats.ReadOptions{})
		n, err := formats.Copy(enc, rd, func(pe *formats.ParseError) {
			fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", in, pe)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if n == 0 {
			return fmt.Errorf("%s: no dump found", in)
		}
		return nil
	})
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

// outputFormat settles format and compression from the flags, falling back
// to the output file's extension, then to text without compression.
func outputFormat(path, format, compress string) (formats.Format, formats.Compression, error) {
	extFormat, extComp := formats.FromPath(path)
	f := extFormat
	if format != "" {
		var err error
		if f, err = formats.ParseFormat(format); err != nil {
			return "", "", err
		}
	}
	if f == "" {
		f = formats.FormatText
	}
	c := extComp
	if compress != "" {
		var err error
		if c, err = formats.ParseCompression(compress); err != nil {
			return "", "", err
		}
	}
	return f, c, nil
}

// writeOutput runs write against standard output or an atomically written
// file, through one large buffer and the chosen compression.
func writeOutput(cmd *cobra.Command, path string, comp formats.Compression, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		out, err := formats.NewOutput(cmd.OutOrStdout(), comp)
		if err != nil {
			return err
		}
		if err := write(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	f, err := dumper.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	out, err := formats.NewOutput(f, comp)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
