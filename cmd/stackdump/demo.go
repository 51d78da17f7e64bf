package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/demo"
	"github.com/stackdump/stackdump/report"
	"github.com/stackdump/stackdump/stack"
)

type demoOptions struct {
	out      string
	duration time.Duration
	leakRate int
	color    string
}

// newDemoCommand is the hidden command behind `make demo`: it runs the
// demo service, captures it through its endpoint, writes dump.json.gz and
// report.html and prints the analysis.
func newDemoCommand() *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:    "demo",
		Short:  "Run the demo service, capture it over HTTP, write the dump and its report, print the analysis",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "demo", "write dump.json.gz and report.html into `DIR`")
	f.DurationVar(&o.duration, "duration", 3*time.Second, "how long the leak grows before the capture")
	f.IntVar(&o.leakRate, "leak-rate", 100, "goroutines leaked per second")
	f.StringVar(&o.color, "color", "auto", "color the analysis: auto, always or never")
	return cmd
}

func runDemo(cmd *cobra.Command, o demoOptions) error {
	color, err := useColor(o.color, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	log := cmd.ErrOrStderr()
	svc, err := demo.Start(demo.Options{LeakRate: o.leakRate})
	if err != nil {
		return err
	}
	defer svc.Close()
	fmt.Fprintf(log, "demo service on %s; letting its leak grow for %s\n", svc.URL, o.duration)
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-time.After(o.duration):
	case <-ctx.Done():
		return ctx.Err()
	}

	d, err := svc.Capture(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "captured %d goroutines from %s (%d leaked so far)\n", d.Total, d.Source.Target, svc.Leaked())
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	dumpPath := filepath.Join(o.out, "dump.json.gz")
	err = writeTo(dumpPath, nil, output.Gzip, func(w io.Writer) error {
		enc, err := formats.NewEncoder(w, output.JSON)
		if err != nil {
			return err
		}
		return stack.WriteDump(enc, d)
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", dumpPath, err)
	}
	groups := dedupe.Group(d, dedupe.Options{})
	reportPath := filepath.Join(o.out, "report.html")
	err = writeTo(reportPath, nil, output.None, func(w io.Writer) error {
		in := report.Input{Name: dumpPath, Dump: d, Groups: groups}
		return report.Write(w, []report.Input{in}, report.Options{Generated: time.Now()})
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", reportPath, err)
	}
	fmt.Fprintf(log, "wrote %s and %s\n\n", dumpPath, reportPath)

	s := analyze.Summarize(d, groups, analyze.Options{})
	s.Source.Name = dumpPath
	return analyze.WriteText(cmd.OutOrStdout(), s, analyze.TextOptions{Color: color})
}
