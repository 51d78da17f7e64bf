package dumper

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"

	"github.com/stackdump/stackdump/formats"
)

// A dump is encoded by one goroutine, and gzip inline costs more than the
// encoding. Here gzip runs beside the encoder on up to maxCompressWorkers
// CPUs with pgzip (1 MiB blocks compressed in parallel, a standard gzip
// stream). zstd stays synchronous: it is twice as fast as gzip already, and
// its asynchronous mode measured slower. docs/capture.md has the numbers.
const (
	// gzipLevel is the fastest level (gzip.BestSpeed), as runtime/pprof
	// uses for the profiles it writes inside a process: the CPU a dump
	// costs a service in trouble counts more than its bytes. On dumps it
	// is 1.6–2.2 times as fast as level 5 (the library's default) for
	// files 25–35% larger. docs/capture.md has the numbers.
	gzipLevel = 1
	// maxCompressWorkers leaves a busy service most of its CPUs.
	maxCompressWorkers = 4
	gzipBlockSize      = 1 << 20
)

// dumpOutput is the formats.Output a dump is written through — one
// large bufio.Writer — over a parallel compressor:
//
//	Output (1 MiB) → checkedWriter → compressor → stickyWriter → w
//
// The compressors are never shown a write error: pgzip's Close returns
// early after one and leaks its writer goroutine. The stickyWriter keeps
// the first error of w and drops later writes; the checkedWriter returns
// that error to the encoder at its next flush, so encoding stops, and
// Close still ends the compressor cleanly.
type dumpOutput struct {
	*formats.Output
	zw   io.WriteCloser // nil when uncompressed
	sink *stickyWriter
}

// newDumpOutput returns an output writing to w with compression c.
func newDumpOutput(w io.Writer, c formats.Compression) (*dumpOutput, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), maxCompressWorkers))
	o := &dumpOutput{sink: &stickyWriter{w: w}}
	if c != "" && c != formats.CompressNone {
		w = o.sink
	}
	switch c {
	case "", formats.CompressNone:
	case formats.CompressGzip:
		zw, err := pgzip.NewWriterLevel(w, gzipLevel)
		if err != nil {
			return nil, err
		}
		if err := zw.SetConcurrency(gzipBlockSize, workers); err != nil {
			return nil, err
		}
		o.zw, w = zw, &checkedWriter{w: zw, sink: o.sink}
	case formats.CompressZstd:
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		o.zw, w = zw, &checkedWriter{w: zw, sink: o.sink}
	default:
		return nil, fmt.Errorf("unknown compression %q (want none, gzip or zstd)", c)
	}
	out, err := formats.NewOutput(w, formats.CompressNone)
	if err != nil {
		return nil, err
	}
	o.Output = out
	return o, nil
}

// Close flushes the buffer and ends the compressed stream; it does not
// close the underlying writer. The compressor is closed even when the
// flush fails, so that its goroutines end. The error is the first one met.
func (o *dumpOutput) Close() error {
	err := o.Output.Close()
	if o.zw != nil {
		if cerr := o.zw.Close(); err == nil {
			err = cerr
		}
	}
	if serr := o.sink.Err(); serr != nil {
		err = serr
	}
	return err
}

// stickyWriter writes to w until a write fails, then keeps that error and
// drops everything after it. It never fails itself, and is safe for the
// concurrent use of a compressor's goroutines.
type stickyWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if n, err := s.w.Write(p); err != nil {
			s.err = err
		} else if n < len(p) {
			s.err = io.ErrShortWrite
		}
	}
	return len(p), nil
}

// Err returns the first error of w.
func (s *stickyWriter) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// checkedWriter writes to w while sink has no error, and returns sink's
// error once it has one.
type checkedWriter struct {
	w    io.Writer
	sink *stickyWriter
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if err := c.sink.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
