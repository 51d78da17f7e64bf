package dumper

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/zseg"
)

// Run the big ones alone, once, on a quiet machine:
//
//	STACKDUMP_BENCH_DIR=/dev/shm go test ./dumper -run '^$' -bench 'Capture|Pipeline' -benchtime 3x -timeout 30m
//
// Metrics: pause-total-ms and pause-max-ms are non-GC stop-the-world time
// per op from runtime/metrics (histogram buckets: within ~12%); pauses is
// their number; complete is 1 when every goroutine is in the output.

var benchSizes = []int{10_000, 100_000}

// benchGoroutines parks n goroutines over a dozen distinct stacks 4 to
// 24 frames deep, like a server's pools of handlers and workers, and
// returns a function that releases them.
func benchGoroutines(tb testing.TB, n int) (stop func()) {
	done := make(chan struct{})
	var mu sync.Mutex
	mu.Lock()
	var wg sync.WaitGroup
	for i := range n {
		depth := 4 + (i%6)*4
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0:
				benchRecv(depth, done)
			case 1:
				benchSelect(depth, done)
			default:
				benchLock(depth, &mu)
			}
		}()
	}
	// Let them all reach their parking spots.
	for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	return func() {
		close(done)
		mu.Unlock()
		wg.Wait()
	}
}

//go:noinline
func benchRecv(depth int, done chan struct{}) {
	if depth > 0 {
		benchRecv(depth-1, done)
		return
	}
	<-done
}

//go:noinline
func benchSelect(depth int, done chan struct{}) {
	if depth > 0 {
		benchSelect(depth-1, done)
		return
	}
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

//go:noinline
func benchLock(depth int, mu *sync.Mutex) {
	if depth > 0 {
		benchLock(depth-1, mu)
		return
	}
	mu.Lock()
	mu.Unlock()
}

// pauseTally accumulates the pauses of the timed operations.
type pauseTally struct {
	before   *pauseSnapshot
	count    int
	total    time.Duration
	longest  time.Duration
	stopping time.Duration
}

func (m *pauseTally) start() { m.before = readPauses() }

func (m *pauseTally) stop() {
	p := readPauses().since(m.before)
	m.count += p.Count
	m.total += p.Total
	m.longest = max(m.longest, p.Longest)
	m.stopping += p.Stopping
}

func (m *pauseTally) report(b *testing.B) {
	b.ReportMetric(float64(m.count)/float64(b.N), "pauses/op")
	b.ReportMetric(float64(m.total.Microseconds())/1000/float64(b.N), "pause-total-ms/op")
	b.ReportMetric(float64(m.longest.Microseconds())/1000, "pause-max-ms")
	b.ReportMetric(float64(m.stopping.Microseconds())/1000/float64(b.N), "stopping-ms/op")
}

// countWriter counts bytes and discards them.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkCapture compares what a dump costs the process: pprof's
// debug=2 (runtime.Stack into a doubling buffer, cut at 64 MiB), full mode
// (one presized pass, then parsed into the model, labels joined), the
// presized pass alone, and grouped mode (the concurrent goroutine profile).
func BenchmarkCapture(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			stop := benchGoroutines(b, n)
			defer stop()
			b.Run("pprof-debug2", func(b *testing.B) {
				var m pauseTally
				var complete float64 = 1
				for b.Loop() {
					var w countWriter
					m.start()
					pprof.Lookup("goroutine").WriteTo(&w, 2)
					m.stop()
					if w.n >= gotext.TruncationSize {
						complete = 0
					}
				}
				m.report(b)
				b.ReportMetric(complete, "complete")
			})
			b.Run("full", func(b *testing.B) {
				var m pauseTally
				var complete float64 = 1
				for b.Loop() {
					m.start()
					d, err := Capture(context.Background(), CaptureOptions{})
					m.stop()
					if err != nil {
						b.Fatal(err)
					}
					if d.Truncated || len(d.Routines) < n {
						complete = 0
					}
				}
				m.report(b)
				b.ReportMetric(complete, "complete")
			})
			b.Run("full-stacks-only", func(b *testing.B) {
				var m pauseTally
				for b.Loop() {
					m.start()
					st := printAllStacks(DefaultMaxBytes)
					m.stop()
					putStackBuf(st.buf)
				}
				m.report(b)
			})
			b.Run("grouped", func(b *testing.B) {
				var m pauseTally
				for b.Loop() {
					m.start()
					_, err := Capture(context.Background(), CaptureOptions{Mode: ModeGrouped})
					m.stop()
					if err != nil {
						b.Fatal(err)
					}
				}
				m.report(b)
			})
		})
	}
}

// BenchmarkPipeline compares the bare runtime.Stack call (presized, so
// one pass) with the whole capture → encode → compress → file path of
// WriteFile. goroutines/s is the figure to compare. On a shared machine the
// two drift apart between runs, so each WriteFile sub-benchmark also times
// a bare runtime.Stack call before every WriteFile, in the same conditions,
// and reports x-runtime.Stack: WriteFile's speed as a fraction of it
// (ns/op there counts both calls).
func BenchmarkPipeline(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			stop := benchGoroutines(b, n)
			defer stop()
			buf := make([]byte, estimateStackBytes(runtime.NumGoroutine())*2)
			bare := func() time.Duration {
				start := time.Now()
				if runtime.Stack(buf, true) == len(buf) {
					b.Fatal("buffer too small")
				}
				return time.Since(start)
			}
			b.Run("runtime.Stack", func(b *testing.B) {
				for b.Loop() {
					bare()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "goroutines/s")
			})
			for _, name := range []string{"dump.json.gz", "dump.json", "dump.json.zst", "dump.txt.gz"} {
				b.Run("WriteFile-"+name, func(b *testing.B) {
					path := filepath.Join(benchDir(b), name)
					var stackTime, writeTime time.Duration
					for b.Loop() {
						stackTime += bare()
						start := time.Now()
						if err := WriteFile(context.Background(), path, FileOptions{}); err != nil {
							b.Fatal(err)
						}
						writeTime += time.Since(start)
					}
					b.ReportMetric(float64(n)*float64(b.N)/writeTime.Seconds(), "goroutines/s")
					b.ReportMetric(stackTime.Seconds()/writeTime.Seconds(), "x-runtime.Stack")
					if fi, err := os.Stat(path); err == nil {
						b.ReportMetric(float64(fi.Size())/float64(n), "file-B/goroutine")
					}
				})
			}
		})
	}
}

// BenchmarkCompress measures the compressors on our JSON and text output
// of a 10k-goroutine dump: throughput (MB/s of input) and ratio.
func BenchmarkCompress(b *testing.B) {
	stop := benchGoroutines(b, 10_000)
	d, err := Capture(context.Background(), CaptureOptions{})
	stop()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []output.Format{output.JSON, output.Text} {
		var raw bytes.Buffer
		if err := encodeDump(context.Background(), &raw, f, d); err != nil {
			b.Fatal(err)
		}
		for _, c := range compressors {
			b.Run(string(f)+"/"+c.name, func(b *testing.B) {
				var w countWriter
				b.SetBytes(int64(raw.Len()))
				for b.Loop() {
					w.n = 0
					zw := c.new(&w)
					if _, err := zw.Write(raw.Bytes()); err != nil {
						b.Fatal(err)
					}
					if err := zw.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(raw.Len())/float64(w.n), "ratio")
			})
		}
	}
}

type compressor struct {
	name string
	new  func(io.Writer) io.WriteCloser
}

var compressors = []compressor{
	{"stdgzip-1", func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 1); return z }},
	{"stdgzip-6", func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 6); return z }},
	{"kgzip-1", func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 1); return z }},
	{"kgzip-5", func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 5); return z }},
	{"kgzip-6", func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 6); return z }},
	{"kgzip-9", func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 9); return z }},
	{"pgzip-1", func(w io.Writer) io.WriteCloser { z, _ := pgzip.NewWriterLevel(w, 1); return z }},
	{"pgzip-5", func(w io.Writer) io.WriteCloser { z, _ := pgzip.NewWriterLevel(w, 5); return z }},
	{"zstd-fastest", zstdLevel(zstd.SpeedFastest)},
	{"zstd-default", zstdLevel(zstd.SpeedDefault)},
	{"zstd-better", zstdLevel(zstd.SpeedBetterCompression)},
	// What Handler and WriteFile use (compress.go), behind the 1 MiB buffer.
	{"dumper-gzip", dumperOutput(output.Gzip)},
	{"dumper-zstd", dumperOutput(output.Zstd)},
	// What a full capture's JSON goes through (json_parallel.go).
	{"segments-gzip", segmented(output.Gzip)},
	{"segments-zstd", segmented(output.Zstd)},
}

// segmented compresses as full-capture JSON is: segments of a chunk's
// size on one goroutine per CPU (up to 4), in order.
func segmented(c output.Compression) func(io.Writer) io.WriteCloser {
	return func(w io.Writer) io.WriteCloser {
		z, _ := zseg.NewWriter(w, compressOptions(c), maxJSONChunk, compressWorkers())
		return z
	}
}

func dumperOutput(c output.Compression) func(io.Writer) io.WriteCloser {
	return func(w io.Writer) io.WriteCloser {
		o, _ := newDumpOutput(w, c)
		return o
	}
}

func zstdLevel(l zstd.EncoderLevel) func(io.Writer) io.WriteCloser {
	return func(w io.Writer) io.WriteCloser {
		z, _ := zstd.NewWriter(w, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1))
		return z
	}
}

// benchDir is where BenchmarkPipeline writes: $STACKDUMP_BENCH_DIR (a
// tmpfs such as /dev/shm leaves out the disk's fsync time), else a
// temporary directory.
func benchDir(b *testing.B) string {
	if dir := os.Getenv("STACKDUMP_BENCH_DIR"); dir != "" {
		dir, err := os.MkdirTemp(dir, "stackdump-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return b.TempDir()
}

func sizeName(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return fmt.Sprint(n)
}
