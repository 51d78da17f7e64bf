package bench

import (
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/stackdump/stackdump/bench/gen"
)

var (
	flagSizes   = flag.String("sizes", "", "comma-separated dump sizes to run (1k,10k,100k,1M); empty for all")
	flagPeers1M = flag.Bool("peers1m", false, "also run the peers on 1M goroutines (needs several GiB of memory)")
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

// inMemory caches dumps read into memory, by file path.
var (
	memMu    sync.Mutex
	inMemory = map[string][]byte{}
)

// loadDump returns a dump's bytes (generating and caching the file first).
func loadDump(b *testing.B, v Variant, n int) ([]byte, gen.Stats) {
	b.Helper()
	path, st := dumpPath(b, v, n)
	memMu.Lock()
	defer memMu.Unlock()
	if d, ok := inMemory[path]; ok {
		return d, st
	}
	d, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	inMemory[path] = d
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
