package dumper

import (
	"io"
	"runtime"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/zseg"
)

// A dump is encoded by one goroutine, and compression inline would cost
// more than the encoding. Here it runs beside the encoder on up to
// maxCompressWorkers CPUs: internal/zseg's Writer cuts the output into
// blocks, compresses each as an independent segment and writes them in
// order as one standard gzip or zstd stream (klauspost/pgzip, used before,
// measured 0.7 times as fast at level 1). A full capture's JSON is
// compressed by its encoding workers instead (json_parallel.go).
// docs/capture.md has the numbers.
const (
	// gzipLevel is the fastest level (gzip.BestSpeed), as runtime/pprof
	// uses for the profiles it writes inside a process: the CPU a dump
	// costs a service in trouble counts more than its bytes. On dumps it
	// is 1.6–2.2 times as fast as level 5 (the library's default) for
	// files 25–35% larger. docs/capture.md has the numbers.
	gzipLevel = 1
	// maxCompressWorkers leaves a busy service most of its CPUs.
	maxCompressWorkers = 4
)

// compressOptions are the zseg options of in-process output compressed
// with c.
func compressOptions(c output.Compression) zseg.Options {
	opts := zseg.Options{Compression: zseg.Codec(c)}
	if c == output.Gzip {
		opts.Level = gzipLevel
	}
	return opts
}

// compressWorkers is how many goroutines compress in-process output.
func compressWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0), maxCompressWorkers))
}

// newDumpOutput returns the buffered writer, compressed with c, a dump is
// written through (zseg.NewOutput).
func newDumpOutput(w io.Writer, c output.Compression) (io.WriteCloser, error) {
	return zseg.NewOutput(w, compressOptions(c), compressWorkers())
}
