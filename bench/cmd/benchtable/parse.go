package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Result is one benchmark line of `go test -bench` output.
type Result struct {
	// Name is the full name without the -GOMAXPROCS suffix:
	// "BenchmarkRead/compatible/10k/stackdump".
	Name    string
	N       int
	Metrics map[string]float64 // by unit: "ns/op", "MB/s", "B/op", "allocs/op", custom ones
}

// Path returns the name's parts after the function name:
// ["compatible", "10k", "stackdump"].
func (r Result) Path() []string {
	parts := strings.Split(r.Name, "/")
	return parts[1:]
}

// Func returns the benchmark function name: "BenchmarkRead".
func (r Result) Func() string {
	f, _, _ := strings.Cut(r.Name, "/")
	return f
}

// ParseResults reads benchmark lines from go test output; other lines are
// ignored. A benchmark line is its name, the iteration count, then value
// and unit pairs.
func ParseResults(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if res, ok := parseLine(sc.Text()); ok {
			out = append(out, res)
		}
	}
	return out, sc.Err()
}

func parseLine(line string) (Result, bool) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
		return Result{}, false
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		return Result{}, false
	}
	name := fields[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 && isDigits(name[i+1:]) {
		name = name[:i]
	}
	res := Result{Name: name, N: n, Metrics: make(map[string]float64)}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false
		}
		res.Metrics[fields[i+1]] = v
	}
	return res, true
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
