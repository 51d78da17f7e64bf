package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackdump/stackdump/bench"
)

// phase is one run of the test binary: a -bench pattern with the
// -benchtime that fits its size.
type phase struct {
	title     string
	pattern   string
	benchtime string
	dumps     []dumpSpec // generated before the phase, with progress shown
}

type dumpSpec struct {
	variant bench.Variant
	n       int
}

// plan returns the phases for the chosen sizes. Benchtimes keep a full run
// within a few minutes on 2 cores: time-based for small dumps, a fixed
// count for large ones (every op of a 100k read is 130 MB).
func plan(o options) []phase {
	var ps []phase
	both := func(n int) []dumpSpec {
		return []dumpSpec{{bench.Compatible, n}, {bench.Modern, n}}
	}
	for _, n := range []int{1000, 10_000, 100_000} {
		if !o.sizes[n] {
			continue
		}
		bt := map[int]string{1000: "1s", 10_000: "1s", 100_000: fmt.Sprintf("%dx", o.largeCount)}[n]
		ps = append(ps, phase{
			title:   "read " + bench.SizeName(n),
			pattern: fmt.Sprintf("^BenchmarkRead$/^(compatible|modern)$/^%s$/", bench.SizeName(n)), benchtime: bt,
			dumps: both(n),
		})
	}
	if o.sizes[100_000] {
		ps = append(ps, phase{
			title: "heap 100k", pattern: "^BenchmarkReadHeap$/^compatible$/^100k$/", benchtime: "1x",
			dumps: []dumpSpec{{bench.Compatible, 100_000}},
		})
	}
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		if !o.sizes[n] {
			continue
		}
		bt := map[int]string{10_000: "1s", 100_000: fmt.Sprintf("%dx", o.largeCount), 1_000_000: "1x"}[n]
		ps = append(ps, phase{
			title:   "group " + bench.SizeName(n),
			pattern: fmt.Sprintf("^BenchmarkGroup$/^compatible$/^%s$/", bench.SizeName(n)), benchtime: bt,
			dumps: []dumpSpec{{bench.Compatible, n}},
		})
	}
	if o.sizes[10_000] {
		// Each failing op sleeps through the retries (~0.5 s) and goleak's
		// also prints 10k stacks: a fixed count keeps the phase short.
		ps = append(ps, phase{title: "leak check 10k", pattern: "^BenchmarkLeakCheck$/^(pass|fail)$/^10k$/", benchtime: "3x"})
	}
	if o.sizes[1_000_000] {
		ps = append(ps, phase{
			title: "group heap 1M", pattern: "^BenchmarkGroupHeap$/^compatible$/^1M$/", benchtime: "1x",
			dumps: []dumpSpec{{bench.Compatible, 1_000_000}},
		})
	}
	ps = append(ps, capturePhases(o)...)
	ps = append(ps, pidPhases(o)...)
	return ps
}

// runner builds the benchmark binary once and runs the phases with it.
type runner struct {
	o      options
	tmp    string
	binary string
	log    io.Writer // progress, stderr
	raw    io.Writer // raw go test output, nil to drop
}

// build compiles the bench package's tests into a binary.
func (r *runner) build(ctx context.Context) error {
	r.binary = filepath.Join(r.tmp, "bench.test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", r.binary, ".")
	cmd.Dir = r.o.dir
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the benchmarks in %s: %w", r.o.dir, err)
	}
	return nil
}

// generate makes sure a phase's dumps are in the cache before timing.
func (r *runner) generate(p phase) error {
	for _, d := range p.dumps {
		start := time.Now()
		path, st, err := bench.Path(d.variant, d.n)
		if err != nil {
			return err
		}
		if time.Since(start) > time.Second {
			fmt.Fprintf(r.log, "  generated %s: %d goroutines, %.0f MB, %d distinct stacks (%.1fs)\n",
				filepath.Base(path), st.Goroutines, float64(st.Bytes)/1e6, st.Stacks, time.Since(start).Seconds())
		}
	}
	return nil
}

// run runs one phase and returns its results. The -count runs are
// rounds, each a run of the binary over every benchmark of the phase, so
// that the contestants a table compares are timed close together and a
// machine that speeds up or slows down during the phase moves them alike
// (with go test's own -count, each ran its runs back to back).
func (r *runner) run(ctx context.Context, p phase) ([]Result, error) {
	args := []string{"-test.run=^$", "-test.bench=" + p.pattern, "-test.benchtime=" + p.benchtime,
		"-test.benchmem", "-test.count=1"}
	if r.o.slow {
		args = append(args, "-slow")
	}
	var out bytes.Buffer
	w := io.Writer(&out)
	if r.raw != nil {
		w = io.MultiWriter(&out, r.raw)
	}
	if r.o.verbose {
		w = io.MultiWriter(w, r.log)
	}
	start := time.Now()
	var err error
	for range max(r.o.count, 1) {
		cmd := exec.CommandContext(ctx, r.binary, args...)
		cmd.Dir = r.o.dir
		cmd.Env = append(os.Environ(), bench.DirEnv+"="+bench.Dir())
		cmd.Stdout, cmd.Stderr = w, w
		if err = cmd.Run(); err != nil {
			break
		}
	}
	res, perr := ParseResults(&out)
	if err != nil {
		return res, fmt.Errorf("phase %s: %w\n%s", p.title, err, tail(out.String(), 2000))
	}
	if perr != nil {
		return res, fmt.Errorf("phase %s: reading its output: %w", p.title, perr)
	}
	fmt.Fprintf(r.log, "  %s: %d results in %.1fs\n", p.title, len(res), time.Since(start).Seconds())
	return res, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// sizeSet parses -sizes.
func sizeSet(s string) (map[int]bool, error) {
	set := make(map[int]bool)
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := bench.ParseSize(f)
		if err != nil {
			return nil, err
		}
		set[n] = true
	}
	return set, nil
}
