package bench

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/bench/gen"
)

var (
	flagSizes = flag.String("sizes", "", "comma-separated dump sizes to run (1k,10k,100k,1M); empty for all")
	flagSlow  = flag.Bool("slow", false, "also run the peers where they take minutes or GiBs: panicparse grouping 100k, gostackparse grouping 1M")
)

// Benchmark sizes, in goroutines.
var (
	readSizes  = []int{1000, 10_000, 100_000}
	heapSizes  = []int{100_000}
	groupSizes = []int{10_000, 100_000, 1_000_000}
)

// wantSize reports whether size n was asked for with -sizes.
func wantSize(n int) bool {
	if *flagSizes == "" {
		return true
	}
	for _, s := range splitComma(*flagSizes) {
		if m, err := ParseSize(s); err == nil && m == n {
			return true
		}
	}
	return false
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// inMemory holds the dump read into memory last, for the parsers that
// read it one after another.
var (
	memMu      sync.Mutex
	memPath    string
	memContent []byte
)

// loadDump returns a dump's bytes (generating and caching the file first).
// Only the dump asked for last is held: a dump another benchmark read
// would add to the live heap and so space out the garbage collections of
// the parsers that allocate (the peers'), which made them look faster on
// the dumps benchmarked later in a run.
func loadDump(b *testing.B, v Variant, n int) ([]byte, gen.Stats) {
	b.Helper()
	path, st := dumpPath(b, v, n)
	memMu.Lock()
	defer memMu.Unlock()
	if path == memPath {
		return memContent, st
	}
	memPath, memContent = "", nil
	runtime.GC() // the dump held before is gone before the next is read
	d, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	memPath, memContent = path, d
	return d, st
}

// dumpPath returns a dump's file, generating it first if needed.
func dumpPath(b *testing.B, v Variant, n int) (string, gen.Stats) {
	b.Helper()
	path, st, err := Path(v, n)
	if err != nil {
		b.Fatal(err)
	}
	return path, st
}

// openDump opens a dump file for one benchmark iteration.
func openDump(b *testing.B, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// reportCPU reports the CPU throughput of the b.N operations that ran
// since start (a CPUTime reading) as cpu-MB/s, when the platform measures
// CPU time. It counts every thread of the process, the GC's included.
func reportCPU(b *testing.B, start time.Duration, bytes int64) {
	used := CPUTime() - start
	if start == 0 || used <= 0 || b.N == 0 {
		return
	}
	perOp := used.Seconds() / float64(b.N)
	b.ReportMetric(float64(bytes)/1e6/perOp, "cpu-MB/s")
}
