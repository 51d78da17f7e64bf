// Command gendump writes a realistic, deterministic goroutine dump for
// benchmarks and tests:
//
//	go run ./cmd/gendump -n 100000 -o dump.txt
//	go run ./cmd/gendump -n 10000 -modern -seed 7 -o modern.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/stackdump/stackdump/bench/gen"
)

// options are gendump's flags.
type options struct {
	n      int
	seed   uint64
	modern bool
	system float64
	labels float64
	out    string
	quiet  bool
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 10000, "number of goroutines")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed; equal seeds give equal dumps")
	flag.BoolVar(&o.modern, "modern", false, "add Go 1.22 gp= headers, Go 1.26 labels and elided deep stacks (see -system, -labels)")
	flag.Float64Var(&o.system, "system", gen.DefaultSystemShare, "with -modern: share of goroutines printed at GOTRACEBACK=system")
	flag.Float64Var(&o.labels, "labels", gen.DefaultLabelShare, "with -modern: share of request goroutines with labels:{…}")
	flag.StringVar(&o.out, "o", "-", "output file; - for stdout")
	flag.BoolVar(&o.quiet, "q", false, "do not print the summary on stderr")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	opts := gen.Compatible(o.n, o.seed)
	if o.modern {
		opts = gen.Modern(o.n, o.seed)
		opts.SystemShare, opts.LabelShare = o.system, o.labels
	}
	var w io.Writer = os.Stdout
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	st, err := gen.Write(bw, opts)
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	if f, ok := w.(*os.File); ok && o.out != "-" {
		if err := f.Close(); err != nil {
			return fmt.Errorf("closing %s: %w", o.out, err)
		}
	}
	if !o.quiet {
		printStats(os.Stderr, st)
	}
	return nil
}

func printStats(w io.Writer, st gen.Stats) {
	fmt.Fprintf(w, "%d goroutines, %d bytes, %d distinct stacks; %d with gp=, %d labelled, %d elided, %d with minutes, %d locked\n",
		st.Goroutines, st.Bytes, st.Stacks, st.System, st.Labelled, st.Elided, st.WithMinutes, st.Locked)
	states := make([]string, 0, len(st.States))
	for s := range st.States {
		states = append(states, s)
	}
	sort.Slice(states, func(i, j int) bool { return st.States[states[i]] > st.States[states[j]] })
	for _, s := range states {
		fmt.Fprintf(w, "%8d  %s\n", st.States[s], s)
	}
}
