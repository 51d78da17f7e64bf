package zseg

import (
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// Segment is a piece of a stream compressed on its own by an Encoder,
// ready for Stream.WriteSegment. Its fields must not be changed.
type Segment struct {
	// Data is the compressed bytes (the bytes as written without
	// compression). Once the segment is written, Data may be passed to
	// Encoder.Take to hold a later segment.
	Data []byte
	// Size is the number of bytes written into the segment, before
	// compression.
	Size int64

	crc  uint32 // CRC-32 (IEEE) of the Size bytes, for gzip
	comp Codec  // the compression of the Encoder that made it
	err  error  // the compressor's error; the segment is unusable
}

// Encoder compresses what is written to it into its current segment,
// independently of every other Encoder and of its own earlier segments.
// One goroutine uses an Encoder at a time; give each worker its own.
type Encoder struct {
	comp  Codec
	level int
	out   sliceWriter
	flate *flate.Writer // gzip
	zstd  *zstd.Encoder // zstd
	crc   uint32        // of the current segment
	size  int64         // of the current segment
	err   error         // sticky: the compressor failed
}

// NewEncoder returns an Encoder making segments for s. It is safe to call
// from any goroutine. Its compressor comes from the ones earlier encoders
// released, when there is one of the same compression and level.
func (s *Stream) NewEncoder() *Encoder {
	e := &Encoder{comp: s.opts.Compression, level: s.opts.Level}
	pool := compressors(e.comp, e.level)
	switch e.comp {
	case Gzip:
		if fw, ok := pool.Get().(*flate.Writer); ok {
			e.flate = fw
			fw.Reset(&e.out)
		} else {
			e.flate, e.err = flate.NewWriter(&e.out, e.level)
		}
	case Zstd:
		if zw, ok := pool.Get().(*zstd.Encoder); ok {
			e.zstd = zw
			zw.Reset(&e.out)
		} else {
			e.zstd, e.err = zstd.NewWriter(&e.out,
				zstd.WithEncoderLevel(zstd.EncoderLevel(e.level)),
				zstd.WithEncoderConcurrency(1))
		}
	}
	if e.err != nil {
		e.err = fmt.Errorf("zseg: new %s encoder: %w", e.comp, e.err)
	}
	return e
}

// Release gives the encoder's compressor back for later encoders of the
// same compression and level: a flate writer is about 600 KB and a zstd
// one holds a history of megabytes, too much to make for every stream. The
// encoder must not be used after; its current segment is dropped.
func (e *Encoder) Release() {
	if e.err == nil {
		pool := compressors(e.comp, e.level)
		switch {
		case e.flate != nil:
			e.flate.Reset(io.Discard)
			pool.Put(e.flate)
		case e.zstd != nil:
			e.zstd.Reset(io.Discard)
			pool.Put(e.zstd)
		}
	}
	e.flate, e.zstd, e.out.b = nil, nil, nil
	e.err = errReleased
}

// pools holds released compressors by compression and level; the sync.Pool
// drops them when the garbage collector runs.
var pools sync.Map // poolKey → *sync.Pool

type poolKey struct {
	comp  Codec
	level int
}

// compressors returns the pool of compressors for comp at level.
func compressors(comp Codec, level int) *sync.Pool {
	k := poolKey{comp, level}
	if p, ok := pools.Load(k); ok {
		return p.(*sync.Pool)
	}
	p, _ := pools.LoadOrStore(k, new(sync.Pool))
	return p.(*sync.Pool)
}

// Write compresses p into the current segment. It fails only if the
// compressor does, and then keeps failing.
func (e *Encoder) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	var n int
	switch e.comp {
	case Gzip:
		n, e.err = e.flate.Write(p)
		e.crc = crc32.Update(e.crc, crc32.IEEETable, p[:n])
	case Zstd:
		n, e.err = e.zstd.Write(p)
	default:
		n, _ = e.out.Write(p)
	}
	e.size += int64(n)
	if e.err != nil {
		e.err = fmt.Errorf("zseg: compressing with %s: %w", e.comp, e.err)
	}
	return n, e.err
}

// Take ends the current segment and returns it. The Encoder goes on with
// a new, empty segment whose compressed bytes are appended to buf[:0]:
// pass the Data of a segment already written to reuse its memory, or nil.
// A segment the compressor failed on is refused by Stream.WriteSegment.
func (e *Encoder) Take(buf []byte) Segment {
	if e.err == nil && e.size > 0 {
		switch e.comp {
		case Gzip:
			e.err = e.flate.Flush() // sync flush: byte-aligned, not final
		case Zstd:
			e.err = e.zstd.Close() // ends the frame
		}
		if e.err != nil {
			e.err = fmt.Errorf("zseg: ending a %s segment: %w", e.comp, e.err)
		}
	}
	seg := Segment{Data: e.out.b, Size: e.size, crc: e.crc, comp: e.comp, err: e.err}
	e.out.b, e.size, e.crc = buf[:0], 0, 0
	switch {
	case e.err != nil:
	case e.flate != nil:
		e.flate.Reset(&e.out)
	case e.zstd != nil:
		e.zstd.Reset(&e.out)
	}
	return seg
}

// sliceWriter appends what is written to it to b.
type sliceWriter struct{ b []byte }

// Write appends p to w.b; it never fails.
func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
