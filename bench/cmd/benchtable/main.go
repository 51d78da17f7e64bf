// Command benchtable runs stackdump's side-by-side benchmarks (package
// bench: stackdump, DataDog/gostackparse, maruel/panicparse/v2) and prints
// Markdown tables of speeds, allocations, peak heap and the ratios between
// stackdump and each peer, then checks the performance targets.
//
//	cd bench && go run ./cmd/benchtable                 # everything, ~6–7 min on 2 cores (the 1M capture: 3.7 GiB)
//	go run ./cmd/benchtable -short                       # 1k and 10k only
//	go run ./cmd/benchtable -sizes 100k -count 3 -raw out.txt
//
// It compiles the benchmarks once (go test -c) and runs each size as its
// own phase with a -benchtime that fits it. Dumps are generated once into
// a cache directory ($STACKDUMP_BENCH_DIR, default under the temp dir).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/stackdump/stackdump/bench"
)

// options are benchtable's flags.
type options struct {
	dir        string
	sizes      map[int]bool
	count      int
	largeCount int
	slow       bool
	verbose    bool
	out        string
	raw        string
	from       []string
}

func main() {
	var o options
	var sizes string
	var short bool
	flag.StringVar(&o.dir, "dir", ".", "directory of the bench module")
	flag.StringVar(&sizes, "sizes", "1k,10k,100k,1M", "comma-separated sizes to run: 1k, 10k and 100k read; 10k, 100k and 1M group; 1M also the trace-mode capture")
	flag.BoolVar(&short, "short", false, "run only 1k and 10k (overrides -sizes)")
	flag.IntVar(&o.count, "count", 1, "rounds: runs of every benchmark of a phase, one after another; tables show the median")
	flag.IntVar(&o.largeCount, "n", 2, "iterations of each 100k benchmark")
	flag.BoolVar(&o.slow, "slow", false, "also run panicparse grouping at 100k (minutes) and gostackparse grouping at 1M (GiBs)")
	flag.BoolVar(&o.verbose, "v", false, "show the raw benchmark output while running")
	flag.StringVar(&o.out, "o", "", "also write the tables to this file")
	flag.StringVar(&o.raw, "raw", "", "write the raw go test output (benchstat input) to this file")
	var from string
	flag.StringVar(&from, "from", "", "comma-separated files of saved raw output to tabulate instead of running")
	flag.Parse()
	if from != "" {
		o.from = strings.Split(from, ",")
	}
	if short {
		sizes = "1k,10k"
	}
	var err error
	if o.sizes, err = sizeSet(sizes); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	missed, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if missed > 0 {
		fmt.Fprintf(os.Stderr, "benchtable: %d target(s) missed\n", missed)
	}
}

func run(ctx context.Context, o options) (int, error) {
	tmp, err := os.MkdirTemp("", "benchtable-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	r := &runner{o: o, tmp: tmp, log: os.Stderr}
	if o.raw != "" {
		f, err := os.Create(o.raw)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		r.raw = f
	}
	var all []Result
	if len(o.from) > 0 {
		all, err = readSaved(o.from)
	} else {
		all, err = runAll(ctx, r)
	}
	if err != nil {
		return 0, err
	}

	var out strings.Builder
	writeHeader(&out, o)
	rs := index(all)
	writeTables(&out, rs)
	missed := writeTargets(&out, rs)
	fmt.Print(out.String())
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(out.String()), 0o644); err != nil {
			return missed, err
		}
	}
	return missed, nil
}

// runAll builds the benchmarks and runs every phase of the plan.
func runAll(ctx context.Context, r *runner) ([]Result, error) {
	start := time.Now()
	fmt.Fprintf(os.Stderr, "benchtable: building the benchmarks; dumps cached in %s\n", bench.Dir())
	if err := r.build(ctx); err != nil {
		return nil, err
	}
	var all []Result
	for _, p := range plan(r.o) {
		if err := r.generate(p); err != nil {
			return all, err
		}
		res, err := r.run(ctx, p)
		all = append(all, res...)
		if err != nil {
			return all, err
		}
	}
	fmt.Fprintf(os.Stderr, "benchtable: done in %.0fs\n", time.Since(start).Seconds())
	return all, nil
}

// readSaved reads benchmark results from saved go test output files.
func readSaved(files []string) ([]Result, error) {
	var all []Result
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		rs, err := ParseResults(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		all = append(all, rs...)
	}
	return all, nil
}

// writeHeader describes the machine and the run.
func writeHeader(w io.Writer, o options) {
	if len(o.from) > 0 {
		fmt.Fprintf(w, "Tables of %s, made %s on %s, %d CPUs.\n\n", strings.Join(o.from, ", "),
			time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU())
		return
	}
	fmt.Fprintf(w, "Run %s on %s, %d CPUs (GOMAXPROCS %d), %s, %s/%s; -count %d, 100k benchmarks %dx.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, o.count, o.largeCount)
	if !o.slow {
		fmt.Fprintf(w, "Not run (they take minutes or GiBs; -slow runs them): panicparse grouping at 100k, gostackparse grouping at 1M.\n\n")
	}
	if load := loadAverage(); load != "" {
		fmt.Fprintf(w, "Load average at the end: %s.\n\n", load)
	}
}

// cpuModel returns the CPU model name from /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadAverage returns the 1, 5 and 15 minute load averages, or "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], ", ")
}
