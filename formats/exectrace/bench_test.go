package exectrace_test

import (
	"bytes"
	"os"
	"runtime/trace"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// BenchmarkTraceReader reads an execution trace of this process taken
// while 100k goroutines (1M with STACKDUMP_BENCH_1M=1) were parked at 50
// distinct stacks.
func BenchmarkTraceReader(b *testing.B) {
	n := 100_000
	if os.Getenv("STACKDUMP_BENCH_1M") != "" {
		n = 1_000_000
	}
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parkAt(i%50, release)
		}()
	}
	time.Sleep(50 * time.Millisecond)
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		b.Skip(err)
	}
	time.Sleep(time.Millisecond)
	trace.Stop()
	close(release)
	wg.Wait()
	raw := buf.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	var routines int
	for range b.N {
		dumps, err := formats.ReadAll(bytes.NewReader(raw), formats.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		routines = len(dumps[0].Routines)
	}
	if routines < n {
		b.Fatalf("%d routines, want ≥%d", routines, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(routines), "ns/routine")
}

// parkAt blocks depth frames down.
func parkAt(depth int, release chan struct{}) {
	if depth == 0 {
		<-release
		return
	}
	parkAt(depth-1, release)
}
