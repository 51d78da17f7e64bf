package main

import (
	"strings"
	"testing"
)

// Output of a real run of this package's benchmarks.
const sample = `goos: linux
goarch: amd64
pkg: github.com/stackdump/stackdump/bench
cpu: AMD EPYC
BenchmarkRead/compatible/10k/stackdump-2         	      20	  50000000 ns/op	 263.12 MB/s	       278.7 cpu-MB/s	     10000 goroutines	  500000 B/op	   2000 allocs/op
BenchmarkRead/compatible/10k/gostackparse-2      	      51	  27659976 ns/op	  47.25 MB/s	       303.5 cpu-MB/s	      10000 goroutines	 1927528 B/op	   38424 allocs/op
BenchmarkRead/modern/10k/gostackparse-2          	      51	  27659976 ns/op	  47.25 MB/s	      9700 goroutines	 1927528 B/op	   38424 allocs/op
BenchmarkGroup/compatible/100k/panicparse-AnyValue-2 	       1	5123456789 ns/op	  25.60 MB/s	       160.0 groups	1740046100 B/op	12044200 allocs/op
BenchmarkGroup/compatible/100k/stackdump-2 	       1	 423456789 ns/op	 310.60 MB/s	       162.0 groups	 40046100 B/op	  120442 allocs/op
BenchmarkGroup/compatible/100k/gostackparse+map 	       1	1423456789 ns/op	 90.60 MB/s	       162.0 groups	 40046100 B/op	  120442 allocs/op
PASS
ok  	github.com/stackdump/stackdump/bench	1.798s
`

func TestParseResults(t *testing.T) {
	rs, err := ParseResults(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 6 {
		t.Fatalf("parsed %d results, want 6: %+v", len(rs), rs)
	}
	r := rs[3]
	if r.Name != "BenchmarkGroup/compatible/100k/panicparse-AnyValue" || r.N != 1 || r.Func() != "BenchmarkGroup" {
		t.Errorf("name %q N %d func %q", r.Name, r.N, r.Func())
	}
	if got := r.Metrics["groups"]; got != 160 {
		t.Errorf("groups = %v", got)
	}
	if got := rs[5].Name; got != "BenchmarkGroup/compatible/100k/gostackparse+map" {
		t.Errorf("a name without a GOMAXPROCS suffix lost its tail: %q", got)
	}
	if p := rs[0].Path(); strings.Join(p, "/") != "compatible/10k/stackdump" {
		t.Errorf("path %v", p)
	}
}

func TestTablesAndTargets(t *testing.T) {
	rs, _ := ParseResults(strings.NewReader(sample))
	var b strings.Builder
	writeTables(&b, index(rs))
	missed := writeTargets(&b, index(rs))
	out := b.String()
	for _, want := range []string{
		"| compatible | 10k | gostackparse | 47.2 | 303.5 | 1.8 MiB | 38.4k | 10000 | 5.57× | 0.92× | 0.26× | 0.052× |",
		"| modern | 10k | gostackparse | 47.2 | 0.0 | 1.8 MiB | 38.4k | 9700 (300 dropped) | – |",
		"| 100k | panicparse-AnyValue | 5123 | 25.6 | 0.0 | 1.6 GiB | 12.0M | 160 | 12× | – |",
		"| read 10k: ≥ 3× gostackparse MB/s | 263.1 vs 47.2 MB/s = 5.57×; CPU 278.7 vs 303.5 = 0.92× | met | **missed** |",
		"| read 10k: ≤ 0.2× gostackparse bytes allocated | 488.3 KiB vs 1.8 MiB = 0.26× | **missed** | **missed** |",
		"| read + group 100k: ≥ 3× gostackparse+map | 423 vs 1423 ms = 3.36× | met | – |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if missed != 2 {
		t.Errorf("missed = %d, want 2", missed)
	}
}

// The leak check table and targets read BenchmarkLeakCheck lines.
func TestLeakCheckTable(t *testing.T) {
	const out = `BenchmarkLeakCheck/pass/10k/leakcheck-2   	3	 72176170 ns/op	 5319366 B/op	     215 allocs/op
BenchmarkLeakCheck/pass/10k/goleak-2      	3	1016869327 ns/op	47735870 B/op	  208288 allocs/op
BenchmarkLeakCheck/fail/10k/leakcheck-2   	3	1606322477 ns/op	        10.00 lines/op	78368020 B/op	   26194 allocs/op
BenchmarkLeakCheck/fail/10k/goleak-2      	3	11428025083 ns/op	     50002 lines/op	526132236 B/op	 2267926 allocs/op
`
	rs, err := ParseResults(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeTables(&b, index(rs))
	if !strings.Contains(b.String(), "| pass 10k | 72 | 1017 | 14× |") || !strings.Contains(b.String(), "| 10 | 50002 |") {
		t.Errorf("leak table:\n%s", b.String())
	}
	b.Reset()
	if missed := writeTargets(&b, index(rs)); missed != 0 || strings.Count(b.String(), "leak check") != 2 {
		t.Errorf("%d missed:\n%s", missed, b.String())
	}
}

// Issue 26's reading target judges both dumps at once: lines of two real
// runs of BenchmarkRead (2026-12-02, AMD EPYC, 2 CPUs), one that meets it
// and one in which the modern dump misses it.
func TestReadSpeedBothDumps(t *testing.T) {
	const metLines = `BenchmarkRead/compatible/10k/stackdump-2         	     148	   8130530 ns/op	1622.55 MB/s	      1608 cpu-MB/s	     10000 goroutines	  808192 B/op	    2017 allocs/op
BenchmarkRead/compatible/10k/gostackparse-2      	      20	  51937154 ns/op	 254.00 MB/s	       227.8 cpu-MB/s	     10000 goroutines	19466364 B/op	  385421 allocs/op
BenchmarkRead/modern/10k/stackdump-2             	     181	   7040337 ns/op	1895.18 MB/s	      1869 cpu-MB/s	     10000 goroutines	 1004960 B/op	    2794 allocs/op
BenchmarkRead/modern/10k/gostackparse-2          	      31	  42552267 ns/op	 313.56 MB/s	       277.6 cpu-MB/s	      9792 goroutines	18867080 B/op	  374335 allocs/op
`
	const modernMissed = `BenchmarkRead/compatible/10k/stackdump-2         	     196	   6033912 ns/op	2186.34 MB/s	      2172 cpu-MB/s	     10000 goroutines	  764736 B/op	    1992 allocs/op
BenchmarkRead/compatible/10k/gostackparse-2      	      34	  33767681 ns/op	 390.68 MB/s	       339.5 cpu-MB/s	     10000 goroutines	19468614 B/op	  385422 allocs/op
BenchmarkRead/modern/10k/stackdump-2             	     129	   9587549 ns/op	1391.67 MB/s	      1381 cpu-MB/s	     10000 goroutines	  953520 B/op	    2768 allocs/op
BenchmarkRead/modern/10k/gostackparse-2          	      32	  39292068 ns/op	 339.58 MB/s	       299.4 cpu-MB/s	      9792 goroutines	18870440 B/op	  374336 allocs/op
`
	tg := readSpeedBoth("10k", 5)
	for _, c := range []struct {
		name, lines, measured string
		wall, cpu             verdict
	}{
		{"met", metLines, "compatible 6.39× (CPU 7.06×), modern 6.04× (CPU 6.73×)", met, met},
		{"modern missed", modernMissed, "compatible 5.60× (CPU 6.40×), modern 4.10× (CPU 4.61×)", missed, missed},
	} {
		rs, err := ParseResults(strings.NewReader(c.lines))
		if err != nil {
			t.Fatal(err)
		}
		m, wall, cpu, ran := tg.check(index(rs))
		if !ran || m != c.measured || wall != c.wall || cpu != c.cpu {
			t.Errorf("%s: %q wall %v cpu %v ran %v; want %q, %v, %v", c.name, m, wall, cpu, ran, c.measured, c.wall, c.cpu)
		}
	}
	if _, _, _, ran := readSpeedBoth("100k", 5).check(index(nil)); ran {
		t.Error("judged without the benchmarks")
	}
}
