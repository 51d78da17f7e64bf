package zseg

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// Writer is an io.WriteCloser that compresses what is written to it into
// one stream, in blocks compressed as segments on up to a given number of
// goroutines (like klauspost/pgzip, which measured half as fast here at
// level 1). Blocks are written to the underlying writer in order by the
// goroutine calling Write and Close, never by the workers, so that writer
// needs no locking. At most twice as many blocks as workers are in flight.
type Writer struct {
	s       *Stream
	block   int        // bytes per block
	workers int        // most goroutines compressing
	buf     []byte     // the block being filled
	queue   []chan job // blocks handed out, oldest first
	work    chan job
	free    chan []byte // blocks and segment buffers for reuse
	started int         // workers started
	wg      sync.WaitGroup
	err     error // sticky
	closed  bool
}

// job is one block to compress; the worker sends it back with its segment.
type job struct {
	data []byte
	seg  Segment
	done chan job
}

// NewWriter returns a Writer of a stream with opts to w, compressing blocks
// of blockSize bytes on up to workers goroutines (at least one). The
// goroutines start with the first full block and end with Close, which
// must be called.
func NewWriter(w io.Writer, opts Options, blockSize, workers int) (*Writer, error) {
	s, err := NewStream(w, opts)
	if err != nil {
		return nil, err
	}
	if blockSize <= 0 {
		return nil, errors.New("zseg: block size must be positive")
	}
	workers = max(1, workers)
	return &Writer{
		s:       s,
		block:   blockSize,
		workers: workers,
		work:    make(chan job, 2*workers),
		free:    make(chan []byte, 4*workers+2),
	}, nil
}

// Write buffers p, handing every full block to a worker. It returns the
// first error of the underlying writer, and keeps returning it.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, ErrWriterClosed
	}
	n := 0
	for len(p) > 0 && z.err == nil {
		if z.buf == nil {
			z.buf = z.getBuf()[:0]
		}
		k := copy(z.buf[len(z.buf):z.block], p)
		z.buf = z.buf[:len(z.buf)+k]
		p, n = p[k:], n+k
		if len(z.buf) == z.block {
			z.submit()
		}
	}
	return n, z.err
}

// submit hands the current block to a worker, first writing the oldest
// block's segment when as many blocks as allowed are in flight.
func (z *Writer) submit() {
	if len(z.queue) == 2*z.workers {
		z.writeOldest()
	}
	if z.started < z.workers && z.started <= len(z.queue) {
		z.started++
		z.wg.Add(1)
		go func() {
			defer z.wg.Done()
			z.compress()
		}()
	}
	done := make(chan job, 1)
	z.queue = append(z.queue, done)
	z.work <- job{data: z.buf, done: done}
	z.buf = nil
}

// compress is a worker: it compresses blocks until Close.
func (z *Writer) compress() {
	enc := z.s.NewEncoder()
	defer enc.Release()
	enc.Take(z.getBuf()[:0])
	for j := range z.work {
		enc.Write(j.data) // an error travels in the segment
		j.seg = enc.Take(z.getBuf()[:0])
		j.done <- j
	}
}

// writeOldest waits for the oldest block in flight and writes its segment.
func (z *Writer) writeOldest() {
	j := <-z.queue[0]
	z.queue = z.queue[1:]
	if z.err == nil {
		z.err = z.s.WriteSegment(j.seg)
	}
	z.putBuf(j.data)
	z.putBuf(j.seg.Data)
}

// Close compresses what is buffered, writes every block in order, ends
// the stream and stops the workers. It does not close the underlying
// writer. The error is the first one met; closing again returns it.
func (z *Writer) Close() error {
	if z.closed {
		return z.err
	}
	z.closed = true
	if len(z.buf) > 0 && z.err == nil {
		z.submit()
	}
	for len(z.queue) > 0 {
		z.writeOldest()
	}
	close(z.work)
	z.wg.Wait()
	if z.err == nil {
		z.err = z.s.Close()
	}
	return z.err
}

// getBuf returns a block-sized buffer, reused when one is free.
func (z *Writer) getBuf() []byte {
	select {
	case b := <-z.free:
		if cap(b) >= z.block {
			return b[:z.block]
		}
	default:
	}
	return make([]byte, z.block)
}

// putBuf keeps b for reuse if there is room.
func (z *Writer) putBuf(b []byte) {
	if cap(b) == 0 {
		return
	}
	select {
	case z.free <- b[:0]:
	default:
	}
}

// Block sizes of the Writers NewOutput makes. Deflate looks back only
// 32 KiB; zstd's window is megabytes, and on our 28 MB JSON its 1 MiB
// segments compressed 11% worse than 2 MiB ones (4 MiB ones 1% better, but
// at two thirds of the speed).
const (
	GzipBlockSize = 1 << 20
	ZstdBlockSize = 2 << 20
)

// NewOutput returns the buffered writer a dump is written through: with
// compression, a Writer of GzipBlockSize or ZstdBlockSize blocks
// compressed on up to workers goroutines; without, one 1 MiB bufio.Writer
// (plainBufferSize, as output.Writer). Either way w sees a few large writes, never one per
// line, all from the goroutine calling Write and Close. Close flushes and
// ends the stream; it does not close w.
func NewOutput(w io.Writer, opts Options, workers int) (io.WriteCloser, error) {
	opts, err := opts.settle()
	if err != nil {
		return nil, err
	}
	switch opts.Compression {
	case Gzip:
		return NewWriter(w, opts, GzipBlockSize, workers)
	case Zstd:
		return NewWriter(w, opts, ZstdBlockSize, workers)
	}
	return plainOutput{bufio.NewWriterSize(w, plainBufferSize)}, nil
}

// plainBufferSize is the buffer of NewOutput without compression, the size
// of output.Writer's buffer: a dump costs few syscalls, never one per line.
const plainBufferSize = 1 << 20

// plainOutput is NewOutput without compression; Close flushes it and does
// not close the underlying writer.
type plainOutput struct{ *bufio.Writer }

// Close flushes the buffered bytes.
func (o plainOutput) Close() error { return o.Flush() }
