package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/bench"
)

// results indexes benchmark results by full name; with -count > 1 each
// metric is the median of the runs.
type results map[string]Result

func index(rs []Result) results {
	runs := make(map[string][]Result)
	var order []string
	for _, r := range rs {
		if _, ok := runs[r.Name]; !ok {
			order = append(order, r.Name)
		}
		runs[r.Name] = append(runs[r.Name], r)
	}
	out := make(results, len(order))
	for _, name := range order {
		rr := runs[name]
		med := Result{Name: name, N: rr[0].N, Metrics: make(map[string]float64)}
		for unit := range rr[0].Metrics {
			vs := make([]float64, 0, len(rr))
			for _, r := range rr {
				vs = append(vs, r.Metrics[unit])
			}
			slices.Sort(vs)
			med.Metrics[unit] = vs[len(vs)/2]
		}
		out[name] = med
	}
	return out
}

// get returns the metric unit of benchmark fn/path..., and whether it ran.
func (rs results) get(unit, fn string, path ...string) (float64, bool) {
	r, ok := rs[fn+"/"+strings.Join(path, "/")]
	if !ok {
		return 0, false
	}
	v, ok := r.Metrics[unit]
	return v, ok
}

// writeTables renders every table whose benchmarks ran, as Markdown.
func writeTables(w io.Writer, rs results) {
	readTable(w, rs)
	heapTable(w, rs)
	groupTable(w, rs)
	leakTable(w, rs)
	captureTable(w, rs)
	pidTable(w, rs)
}

// leakTable compares leakcheck with goleak: a passing check beside 10k
// goroutines ignored through IgnoreCurrent, and a failing one on 10k
// leftovers (time and report length).
func leakTable(w io.Writer, rs results) {
	var rows [][]string
	for _, c := range []string{"pass", "fail"} {
		lc, ok1 := rs.get("ns/op", "BenchmarkLeakCheck", c, "10k", "leakcheck")
		gl, ok2 := rs.get("ns/op", "BenchmarkLeakCheck", c, "10k", "goleak")
		if !ok1 || !ok2 {
			continue
		}
		lines := func(name string) string {
			if v, ok := rs.get("lines/op", "BenchmarkLeakCheck", c, "10k", name); ok {
				return fmt.Sprintf("%.0f", v)
			}
			return "–"
		}
		b := func(name string) string {
			v, _ := rs.get("B/op", "BenchmarkLeakCheck", c, "10k", name)
			return human(v, "B")
		}
		rows = append(rows, []string{c + " 10k", fmt.Sprintf("%.0f", lc/1e6), fmt.Sprintf("%.0f", gl/1e6), ratio(gl, lc),
			b("leakcheck"), b("goleak"), lines("leakcheck"), lines("goleak")})
	}
	writeTable(w, "Leak check in a test: leakcheck vs goleak (10k goroutines)", []string{
		"case", "leakcheck ms/op", "goleak ms/op", "leakcheck speed ×", "leakcheck B/op", "goleak B/op",
		"leakcheck report lines", "goleak report lines",
	}, rows)
}

func readTable(w io.Writer, rs results) {
	var rows [][]string
	for _, v := range []bench.Variant{bench.Compatible, bench.Modern} {
		for _, n := range []int{1000, 10_000, 100_000} {
			size := bench.SizeName(n)
			get := func(unit, parser string) float64 {
				x, _ := rs.get(unit, "BenchmarkRead", string(v), size, parser)
				return x
			}
			_, sdRan := rs.get("MB/s", "BenchmarkRead", string(v), size, "stackdump")
			for _, p := range bench.Parsers {
				if _, ran := rs.get("MB/s", "BenchmarkRead", string(v), size, p.Name); !ran {
					continue
				}
				row := []string{string(v), size, p.Name,
					fmt.Sprintf("%.1f", get("MB/s", p.Name)), fmt.Sprintf("%.1f", get("cpu-MB/s", p.Name)),
					human(get("B/op", p.Name), "B"), human(get("allocs/op", p.Name), ""),
					goroutines(get("goroutines", p.Name), n)}
				if p.Name == "stackdump" || !sdRan {
					row = append(row, "–", "–", "–", "–")
				} else {
					row = append(row,
						ratio(get("MB/s", "stackdump"), get("MB/s", p.Name)),
						ratio(get("cpu-MB/s", "stackdump"), get("cpu-MB/s", p.Name)),
						ratio(get("B/op", "stackdump"), get("B/op", p.Name)),
						ratio(get("allocs/op", "stackdump"), get("allocs/op", p.Name)))
				}
				rows = append(rows, row)
			}
		}
	}
	writeTable(w, "Reading (whole dump in memory, every field touched)", []string{
		"dump", "goroutines", "parser", "MB/s", "CPU MB/s", "B/op", "allocs/op", "goroutines read",
		"stackdump speed ×", "stackdump CPU speed ×", "stackdump bytes ×", "stackdump allocs ×",
	}, rows)
}

func heapTable(w io.Writer, rs results) {
	var rows [][]string
	for _, p := range bench.Parsers {
		if v, ok := rs.get("peak-heap-MiB", "BenchmarkReadHeap", "compatible", "100k", p.Name); ok {
			rows = append(rows, []string{"read 100k from file", p.Name, fmt.Sprintf("%.1f", v)})
		}
	}
	if v, ok := rs.get("peak-heap-MiB", "BenchmarkGroupHeap", "compatible", "1M", "stackdump"); ok {
		rows = append(rows, []string{"read + group 1M from file", "stackdump", fmt.Sprintf("%.1f", v)})
	}
	writeTable(w, "Peak heap (HeapInuse above the baseline, sampled every 2 ms)", []string{"case", "parser", "peak heap MiB"}, rows)
}

func groupTable(w io.Writer, rs results) {
	var rows [][]string
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		size := bench.SizeName(n)
		get := func(unit, name string) float64 {
			x, _ := rs.get(unit, "BenchmarkGroup", "compatible", size, name)
			return x
		}
		_, sdRan := rs.get("ns/op", "BenchmarkGroup", "compatible", size, "stackdump")
		for _, g := range bench.Groupings {
			ns, ran := rs.get("ns/op", "BenchmarkGroup", "compatible", size, g.Name)
			if !ran {
				continue
			}
			wall, cpu := "–", "–"
			if g.Name != "stackdump" && sdRan {
				wall = ratio(ns, get("ns/op", "stackdump"))
				cpu = ratio(get("cpu-MB/s", "stackdump"), get("cpu-MB/s", g.Name))
			}
			rows = append(rows, []string{size, g.Name, fmt.Sprintf("%.0f", ns/1e6),
				fmt.Sprintf("%.1f", get("MB/s", g.Name)), fmt.Sprintf("%.1f", get("cpu-MB/s", g.Name)),
				human(get("B/op", g.Name), "B"), human(get("allocs/op", g.Name), ""),
				fmt.Sprintf("%.0f", get("groups", g.Name)), wall, cpu})
		}
	}
	writeTable(w, "Read + group by stack (dump read from its file)", []string{
		"goroutines", "contestant", "ms/op", "MB/s", "CPU MB/s", "B/op", "allocs/op", "groups",
		"stackdump speed ×", "stackdump CPU speed ×",
	}, rows)
}

// writeTable writes a Markdown table under a bold title; nothing when no
// row ran.
func writeTable(w io.Writer, title string, header []string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "**%s**\n\n", title)
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
		if i > 0 {
			seps[i] = "--:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

// ratio writes a/b as "3.2×", or "–" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	r := a / b
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 0.1:
		return fmt.Sprintf("%.2f×", r)
	}
	return fmt.Sprintf("%.3f×", r)
}

// human writes a count with a k/M/G suffix (binary for bytes).
func human(v float64, unit string) string {
	base, sfx := 1000.0, []string{"", "k", "M", "G", "T"}
	if unit == "B" {
		base, sfx = 1024, []string{" B", " KiB", " MiB", " GiB", " TiB"}
	}
	i := 0
	for v >= base && i < len(sfx)-1 {
		v /= base
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f%s", v, sfx[0])
	}
	return fmt.Sprintf("%.1f%s", v, sfx[i])
}

// goroutines writes how many goroutines a parser returned, with how many
// it dropped.
func goroutines(found float64, n int) string {
	if int(found) == n {
		return fmt.Sprintf("%d", n)
	}
	return fmt.Sprintf("%.0f (%d dropped)", found, n-int(found))
}
