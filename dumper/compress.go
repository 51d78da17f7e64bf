package dumper

import (
	"fmt"
	"io"
	"runtime"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/zseg"
)

// A dump is encoded by one goroutine, and compression inline would cost
// more than the encoding. Here it runs beside the encoder on up to
// maxCompressWorkers CPUs: internal/zseg's Writer cuts the output into
// blocks, compresses each as an independent segment and writes them
// in order as one standard gzip or zstd stream (klauspost/pgzip, used
// before, measured half as fast at level 1). A full capture's JSON is
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
	// gzipBlockSize and zstdBlockSize are the output compressed as one
	// segment. Deflate looks back only 32 KiB; zstd's window is megabytes:
	// on our 28 MB JSON, 1 MiB segments compressed 11% worse than 2 MiB
	// ones, and 4 MiB ones 1% better but at two thirds of the speed.
	gzipBlockSize = 1 << 20
	zstdBlockSize = 2 << 20
)

// dumpOutput is the buffered writer a dump is written through: a
// zseg.Writer when compressed (its blocks are the buffer), else one
// 1 MiB bufio.Writer (formats.Output). Either way the destination sees a
// few large writes, never one per line, all from the goroutine that calls
// Write and Close.
type dumpOutput struct {
	out *formats.Output // uncompressed
	zw  *zseg.Writer    // compressed
}

// newDumpOutput returns an output writing to w with compression c.
func newDumpOutput(w io.Writer, c formats.Compression) (*dumpOutput, error) {
	switch c {
	case "", formats.CompressNone:
		out, err := formats.NewOutput(w, formats.CompressNone)
		if err != nil {
			return nil, err
		}
		return &dumpOutput{out: out}, nil
	case formats.CompressGzip, formats.CompressZstd:
		opts, block := zseg.Options{Compression: c}, zstdBlockSize
		if c == formats.CompressGzip {
			opts.Level, block = gzipLevel, gzipBlockSize
		}
		workers := max(1, min(runtime.GOMAXPROCS(0), maxCompressWorkers))
		zw, err := zseg.NewWriter(w, opts, block, workers)
		if err != nil {
			return nil, err
		}
		return &dumpOutput{zw: zw}, nil
	}
	return nil, fmt.Errorf("unknown compression %q (want none, gzip or zstd)", c)
}

// Write buffers p; it returns the destination's first error.
func (o *dumpOutput) Write(p []byte) (int, error) {
	if o.zw != nil {
		return o.zw.Write(p)
	}
	return o.out.Write(p)
}

// Close flushes what is buffered and ends the compressed stream, stopping
// the compressor's goroutines; it does not close the destination. The
// error is the first one met.
func (o *dumpOutput) Close() error {
	if o.zw != nil {
		return o.zw.Close()
	}
	return o.out.Close()
}
