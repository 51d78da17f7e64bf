package main

import (
	"strings"
	"testing"
)

// captureSideBySide is a line of a real run after the two walks went side
// by side (2026-12-02 15:36, benchtable -count 5, the fourth round).
const captureSideBySide = `BenchmarkCapture1M-2   	       3	2297824216 ns/op	         2.253 cpu-ratio	      1398 endpoint-ms	         1.504 endpoint-ratio	        28.67 endpoint-stw-max-us	        16.42 file-MB	       941.0 floor-cpu-ms	       928.8 floor-ms	         0 gc-cycles	         0 gc-stw-max-us	   1000006 goroutines	     10000 labelled	       945.9 nolabels-ms	         1.018 nolabels-ratio	      3643 peak-rss-MiB	         1.474 ratio	        28.67 stw-max-us	      2118 trace-cpu-ms	      1369 trace-ms	641011200 B/op	 2027686 allocs/op`

// captureSample is a line of a real run of BenchmarkCapture1M (2026-12-02,
// go1.26.8, the project's 2-CPU machine).
const captureSample = `BenchmarkCapture1M-2   	       3	3474309586 ns/op	         2.863 cpu-ratio	        16.74 file-MB	      1246 floor-cpu-ms	      1287 floor-ms	         0 gc-cycles	         0 gc-stw-max-us	   1000002 goroutines	     10000 labelled	      3635 peak-rss-MiB	         1.711 ratio	      4194 stw-max-us	      3537 trace-cpu-ms	      2187 trace-ms
`

func TestCaptureTableAndTarget(t *testing.T) {
	rs, err := ParseResults(strings.NewReader(captureSample))
	if err != nil || len(rs) != 1 {
		t.Fatalf("parsed %d results, %v", len(rs), err)
	}
	idx := index(rs)
	var b strings.Builder
	captureTable(&b, idx)
	for _, want := range []string{"Capture of 1M parked goroutines", "peak RSS 3635 MiB", "| runtime.GoroutineProfile (the floor) | 1287 | 1246 |",
		"| dumper.WriteFile x.json.gz, ModeTrace | 2187 | 3537 | 1.71× | 2.86× | 4194 | 0 | 16.7 | 10000 of 1000002 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	m, wall, cpu, ran := captureTarget.check(idx)
	if !ran || wall != missed || cpu != unknown || !strings.Contains(m, "1.71× wall, 2.86× CPU; longest pause 4194 µs; 10000 of 10000") {
		t.Errorf("target: %q wall %v cpu %v ran %v; want wall missed (the pause is 4194 µs), CPU not judged", m, wall, cpu, ran)
	}
	rs, err = ParseResults(strings.NewReader(captureSideBySide))
	if err != nil {
		t.Fatal(err)
	}
	m, wall, cpu, ran = captureTarget.check(index(rs))
	if !ran || wall != met || cpu != unknown || !strings.Contains(m, "1.47× wall, 2.25× CPU; longest pause 29 µs; 10000 of 10000") {
		t.Errorf("target: %q wall %v cpu %v ran %v; want wall met, CPU not judged", m, wall, cpu, ran)
	}
	if _, _, _, ran := captureTarget.check(index(nil)); ran {
		t.Error("target judged without the benchmark")
	}
}

func TestCapturePhaseOnlyAt1M(t *testing.T) {
	if ps := capturePhases(options{sizes: map[int]bool{1000: true, 10_000: true}}); len(ps) != 0 {
		t.Errorf("-short sizes plan %v", ps)
	}
	ps := capturePhases(options{sizes: map[int]bool{1_000_000: true}})
	if len(ps) != 1 || ps[0].pattern != "^BenchmarkCapture1M$" {
		t.Errorf("1M plans %v", ps)
	}
}
