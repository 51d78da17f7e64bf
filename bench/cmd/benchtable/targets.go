package main

import (
	"fmt"
	"io"
	"strings"
)

// target is one performance goal of docs/PERFORMANCE.md, checked against
// the measured results.
type target struct {
	what string
	// check returns the measurement and whether the target is met on
	// wall-clock and on CPU-time throughput (the same for heap targets).
	check func(rs results) (measured string, wall, cpu verdict, ran bool)
}

// verdict says whether a target was met.
type verdict int

const (
	unknown verdict = iota // not measured (no CPU time on this platform)
	met
	missed
)

func judge(ok bool) verdict {
	if ok {
		return met
	}
	return missed
}

func (v verdict) String() string {
	switch v {
	case met:
		return "met"
	case missed:
		return "**missed**"
	}
	return "–"
}

// targets are the goals stackdump is held to.
var targets = []target{
	readSpeed("10k"), readBytes("10k"),
	readSpeed("100k"), readBytes("100k"),
	readSpeedBoth("10k", 5), readSpeedBoth("100k", 5),
	groupSpeed("gostackparse+map", 3), groupSpeed("panicparse-AnyValue", 10),
	{
		what: "leak check passing beside 10k ignored goroutines: ≥ 2× goleak",
		check: func(rs results) (string, verdict, verdict, bool) {
			lc, ok1 := rs.get("ns/op", "BenchmarkLeakCheck", "pass", "10k", "leakcheck")
			gl, ok2 := rs.get("ns/op", "BenchmarkLeakCheck", "pass", "10k", "goleak")
			if !ok1 || !ok2 || lc == 0 {
				return "", unknown, unknown, false
			}
			return fmt.Sprintf("%.0f vs %.0f ms = %s", lc/1e6, gl/1e6, ratio(gl, lc)), judge(gl >= 2*lc), unknown, true
		},
	},
	{
		what: "leak check failing on 10k leftovers: report ≤ 1/100 of goleak's lines",
		check: func(rs results) (string, verdict, verdict, bool) {
			lc, ok1 := rs.get("lines/op", "BenchmarkLeakCheck", "fail", "10k", "leakcheck")
			gl, ok2 := rs.get("lines/op", "BenchmarkLeakCheck", "fail", "10k", "goleak")
			if !ok1 || !ok2 {
				return "", unknown, unknown, false
			}
			v := judge(lc*100 <= gl)
			return fmt.Sprintf("%.0f vs %.0f lines", lc, gl), v, v, true
		},
	},
	{
		what: "streaming 100k: peak heap < 64 MiB",
		check: func(rs results) (string, verdict, verdict, bool) {
			v, ok := rs.get("peak-heap-MiB", "BenchmarkReadHeap", "compatible", "100k", "stackdump")
			return fmt.Sprintf("%.1f MiB", v), judge(v < 64), judge(v < 64), ok
		},
	},
	{
		what: "read + group 1M: peak heap ≤ 256 MiB",
		check: func(rs results) (string, verdict, verdict, bool) {
			v, ok := rs.get("peak-heap-MiB", "BenchmarkGroupHeap", "compatible", "1M", "stackdump")
			return fmt.Sprintf("%.1f MiB", v), judge(v <= 256), judge(v <= 256), ok
		},
	},
}

func readSpeed(size string) target {
	return target{
		what: "read " + size + ": ≥ 3× gostackparse MB/s",
		check: func(rs results) (string, verdict, verdict, bool) {
			sd, gp, sdCPU, gpCPU, ok := readSpeeds(rs, "compatible", size)
			if !ok {
				return "", unknown, unknown, false
			}
			m := fmt.Sprintf("%.1f vs %.1f MB/s = %s", sd, gp, ratio(sd, gp))
			cpu := unknown
			if sdCPU > 0 && gpCPU > 0 {
				m += fmt.Sprintf("; CPU %.1f vs %.1f = %s", sdCPU, gpCPU, ratio(sdCPU, gpCPU))
				cpu = judge(sdCPU >= 3*gpCPU)
			}
			return m, judge(sd >= 3*gp), cpu, true
		},
	}
}

// readSpeedBoth is issue 26's reading target: at least times ×
// gostackparse's MB/s on the compatible and the modern dump alike, in wall
// clock and in CPU time.
func readSpeedBoth(size string, times float64) target {
	return target{
		what: fmt.Sprintf("read %s, compatible and modern dumps: ≥ %.0f× gostackparse MB/s", size, times),
		check: func(rs results) (string, verdict, verdict, bool) {
			var parts []string
			wallOK, cpuOK, cpuKnown := true, true, true
			for _, v := range []string{"compatible", "modern"} {
				sd, gp, sdCPU, gpCPU, ok := readSpeeds(rs, v, size)
				if !ok {
					return "", unknown, unknown, false
				}
				part := v + " " + ratio(sd, gp)
				wallOK = wallOK && sd >= times*gp
				if sdCPU > 0 && gpCPU > 0 {
					part += " (CPU " + ratio(sdCPU, gpCPU) + ")"
					cpuOK = cpuOK && sdCPU >= times*gpCPU
				} else {
					cpuKnown = false
				}
				parts = append(parts, part)
			}
			cpu := unknown
			if cpuKnown {
				cpu = judge(cpuOK)
			}
			return strings.Join(parts, ", "), judge(wallOK), cpu, true
		},
	}
}

// readSpeeds returns stackdump's and gostackparse's reading speeds of a
// dump, wall clock and CPU (0 when not measured); ok is false when the
// wall-clock speeds were not.
func readSpeeds(rs results, variant, size string) (sd, gp, sdCPU, gpCPU float64, ok bool) {
	sd, ok1 := rs.get("MB/s", "BenchmarkRead", variant, size, "stackdump")
	gp, ok2 := rs.get("MB/s", "BenchmarkRead", variant, size, "gostackparse")
	sdCPU, _ = rs.get("cpu-MB/s", "BenchmarkRead", variant, size, "stackdump")
	gpCPU, _ = rs.get("cpu-MB/s", "BenchmarkRead", variant, size, "gostackparse")
	return sd, gp, sdCPU, gpCPU, ok1 && ok2 && gp > 0
}

func readBytes(size string) target {
	return target{
		what: "read " + size + ": ≤ 0.2× gostackparse bytes allocated",
		check: func(rs results) (string, verdict, verdict, bool) {
			sd, ok1 := rs.get("B/op", "BenchmarkRead", "compatible", size, "stackdump")
			gp, ok2 := rs.get("B/op", "BenchmarkRead", "compatible", size, "gostackparse")
			if !ok1 || !ok2 || gp == 0 {
				return "", unknown, unknown, false
			}
			v := judge(sd <= 0.2*gp)
			return fmt.Sprintf("%s vs %s = %s", human(sd, "B"), human(gp, "B"), ratio(sd, gp)), v, v, true
		},
	}
}

func groupSpeed(peer string, times float64) target {
	return target{
		what: fmt.Sprintf("read + group 100k: ≥ %.0f× %s", times, peer),
		check: func(rs results) (string, verdict, verdict, bool) {
			sd, ok1 := rs.get("ns/op", "BenchmarkGroup", "compatible", "100k", "stackdump")
			p, ok2 := rs.get("ns/op", "BenchmarkGroup", "compatible", "100k", peer)
			sdCPU, _ := rs.get("cpu-MB/s", "BenchmarkGroup", "compatible", "100k", "stackdump")
			pCPU, _ := rs.get("cpu-MB/s", "BenchmarkGroup", "compatible", "100k", peer)
			if !ok1 || !ok2 || sd == 0 {
				return "", unknown, unknown, false
			}
			m := fmt.Sprintf("%.0f vs %.0f ms = %s", sd/1e6, p/1e6, ratio(p, sd))
			cpu := unknown
			if sdCPU > 0 && pCPU > 0 {
				m += "; CPU " + ratio(sdCPU, pCPU)
				cpu = judge(sdCPU >= times*pCPU)
			}
			return m, judge(p >= times*sd), cpu, true
		},
	}
}

// writeTargets lists each goal with its measurement, judged on wall-clock
// and on CPU time; goals whose benchmarks did not run are left out. It
// returns how many were missed on either.
func writeTargets(w io.Writer, rs results) int {
	var rows [][]string
	n := 0
	for _, t := range targets {
		m, wall, cpu, ran := t.check(rs)
		if !ran {
			continue
		}
		if wall == missed || cpu == missed {
			n++
		}
		rows = append(rows, []string{t.what, m, wall.String(), cpu.String()})
	}
	writeTable(w, "Targets", []string{"target", "measured", "wall clock", "CPU time"}, rows)
	return n
}
