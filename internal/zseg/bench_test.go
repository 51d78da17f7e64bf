package zseg

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"
)

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// benchSegment is the size of the chunks each worker compresses.
const benchSegment = 4 << 20

// BenchmarkParallelGzip compresses 32 MiB of dump JSON with one worker per
// CPU, each making its own 4 MiB segments, against pgzip with the same
// blocks, level and concurrency, and klauspost's gzip on one goroutine;
// then zstd segments against klauspost's zstd on one goroutine.
// MB/s is of input; ratio is input bytes per output byte.
func BenchmarkParallelGzip(b *testing.B) {
	data := dumpJSON(32<<20, 12)
	workers := runtime.GOMAXPROCS(0)
	for _, level := range []int{1, DefaultGzipLevel} {
		b.Run(fmt.Sprintf("zseg/level=%d", level), func(b *testing.B) {
			benchCompress(b, data, func(w io.Writer) error {
				return compressParallel(w, Options{Compression: Gzip, Level: level}, data, benchSegment, workers)
			})
		})
		b.Run(fmt.Sprintf("pgzip/level=%d", level), func(b *testing.B) {
			benchCompress(b, data, func(w io.Writer) error {
				zw, err := pgzip.NewWriterLevel(w, level)
				if err != nil {
					return err
				}
				if err := zw.SetConcurrency(benchSegment, workers); err != nil {
					return err
				}
				if _, err := zw.Write(data); err != nil {
					return err
				}
				return zw.Close()
			})
		})
	}
	b.Run(fmt.Sprintf("gzip-1-goroutine/level=%d", DefaultGzipLevel), func(b *testing.B) {
		benchCompress(b, data, func(w io.Writer) error {
			zw, err := gzip.NewWriterLevel(w, DefaultGzipLevel)
			if err != nil {
				return err
			}
			if _, err := zw.Write(data); err != nil {
				return err
			}
			return zw.Close()
		})
	})
	b.Run("zseg/zstd", func(b *testing.B) {
		benchCompress(b, data, func(w io.Writer) error {
			return compressParallel(w, Options{Compression: Zstd}, data, benchSegment, workers)
		})
	})
	b.Run("zstd-1-goroutine", func(b *testing.B) {
		benchCompress(b, data, func(w io.Writer) error {
			zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
			if err != nil {
				return err
			}
			if _, err := zw.Write(data); err != nil {
				return err
			}
			return zw.Close()
		})
	})
}

// benchCompress runs compress into a counting writer and reports the
// input's throughput and the compression ratio.
func benchCompress(b *testing.B, data []byte, compress func(io.Writer) error) {
	b.SetBytes(int64(len(data)))
	var out countingWriter
	for b.Loop() {
		out.n = 0
		if err := compress(&out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/float64(out.n), "ratio")
}
