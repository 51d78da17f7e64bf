package main

import (
	"strings"
	"testing"
)

// pidSample is a real run of BenchmarkPid at 100k (2026-12-07 21:25,
// go1.26.8, the project's 2-CPU machine at a load average of 16: the idle
// row is the noise).
const pidSample = `BenchmarkPid/100k/consistent-2         	       1	1293630860 ns/op	    100005 goroutines	       105.5 stall-ms	       105.9 stall-own-ms	      1273 wall-ms
BenchmarkPid/100k/idle-2               	       1	1294294931 ns/op	         7.668 stall-ms	      1274 wall-ms
BenchmarkPid/100k/maxpause10ms-2       	       1	2098845520 ns/op	    100005 goroutines	        51.43 stall-ms	         0 stopped	      2077 wall-ms
BenchmarkPid/100k/debug2-2             	       1	11988680398 ns/op	    100007 goroutines	      5081 stall-ms	     11967 wall-ms
BenchmarkPid/100k/gcore-2              	       1	23689821640 ns/op	      2303 core-MB	     23312 stall-ms	     23667 wall-ms
`

// pidOnCPU is a real run with the ticker's gap less its CPU wait
// (2026-12-07 21:40, load average 13–16).
const pidOnCPU = `BenchmarkPid/100k/idle-2             	       3	1571340707 ns/op	       124.1 stall-ms	         1.207 stall-oncpu-ms	      1551 wall-ms
BenchmarkPid/100k/maxpause10ms-2     	       3	 858300144 ns/op	    100005 goroutines	        51.81 stall-ms	         0.5505 stall-oncpu-ms	         0 stopped	       836.8 wall-ms
`

func TestPidTableAndTarget(t *testing.T) {
	rs, err := ParseResults(strings.NewReader(pidSample))
	if err != nil || len(rs) != 5 {
		t.Fatalf("parsed %d results, %v", len(rs), err)
	}
	idx := index(rs)
	var b strings.Builder
	pidTable(&b, idx)
	for _, want := range []string{
		"| 100k | capture pid: (one instant, no pause budget) | 105.5 | – | 1273 | 100005 | stopped 105.9 ms by its own clock |",
		"| 100k | capture pid: --max-pause 10ms | 51.4 | – | 2077 | 100005 | never stopped (over 10 ms) |",
		"| 100k | debug=2 in the program (net/http/pprof) | 5081.0 | – | 11967 | 100007 | – |",
		"| 100k | gcore PID | 23312.0 | – | 23667 | – | 2303 MB core |",
		"| 100k | nothing (the ticker's noise over the same window) | 7.7 | – | 1274 | – | – |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	m, wall, cpu, ran := pidTarget.check(idx)
	if !ran || wall != missed || cpu != unknown || !strings.Contains(m, "stall 51.4 ms less CPU wait (51.4 ms raw; idle 7.7 ms raw), 100005 goroutines read") {
		t.Errorf("target: %q wall %v cpu %v ran %v", m, wall, cpu, ran)
	}
	rs, err = ParseResults(strings.NewReader(pidOnCPU))
	if err != nil {
		t.Fatal(err)
	}
	m, wall, _, ran = pidTarget.check(index(rs))
	if !ran || wall != met || !strings.Contains(m, "stall 0.6 ms less CPU wait (51.8 ms raw; idle 124.1 ms raw), 100005 goroutines read") {
		t.Errorf("target: %q wall %v ran %v; want met on the gap less CPU wait", m, wall, ran)
	}
	if _, _, _, ran := pidTarget.check(index(nil)); ran {
		t.Error("target judged without the benchmark")
	}
	if ps := pidPhases(options{sizes: map[int]bool{10_000: true, 1_000_000: true}}); len(ps) != 1 || ps[0].pattern != "^BenchmarkPid$/^10k$/" {
		t.Errorf("phases for 10k and 1M: %+v", ps)
	}
}
