package zseg

import (
	"encoding/binary"
	"fmt"
	"io"
)

// gzipHeader is the member header klauspost/compress/gzip writes without a
// name, comment or time: magic, deflate, no flags, no mtime, no extra
// flags, OS unknown.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// deflateEnd is an empty final block with fixed Huffman codes: BFINAL=1,
// BTYPE=01, then the 7-bit end-of-block code.
var deflateEnd = [2]byte{0x03, 0x00}

// zstdEmptyFrame is a frame of no data, as `zstd` writes it for an empty
// input: single segment, content size 0, one empty last raw block, and
// the checksum of nothing. Decoders reject a stream of zero bytes.
var zstdEmptyFrame = [13]byte{0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00, 0x01, 0x00, 0x00, 0x99, 0xe9, 0xd8, 0x51}

// Stream writes segments, in the order they are given, as one compressed
// stream. WriteSegment and Close are called by one goroutine; NewEncoder
// by any.
type Stream struct {
	w      io.Writer
	opts   Options
	begun  bool   // the gzip header or a zstd frame is written
	closed bool   // Close was called
	crc    uint32 // of all the data so far, for gzip
	size   int64  // of all the data so far
	err    error  // sticky: w failed
}

// NewStream returns a Stream writing to w. It writes nothing until the
// first segment or Close.
func NewStream(w io.Writer, opts Options) (*Stream, error) {
	opts, err := opts.settle()
	if err != nil {
		return nil, err
	}
	return &Stream{w: w, opts: opts}, nil
}

// WriteSegment appends seg to the stream, first writing the gzip header if
// it is the first. Empty segments are skipped. After a write to the
// underlying writer fails, it writes nothing more and returns that error.
func (s *Stream) WriteSegment(seg Segment) error {
	switch {
	case s.err != nil:
		return s.err
	case s.closed:
		return ErrClosed
	case seg.err != nil:
		return fmt.Errorf("zseg: segment: %w", seg.err)
	case seg.Size == 0 && len(seg.Data) == 0:
		return nil
	case seg.comp != s.opts.Compression:
		return fmt.Errorf("zseg: segment made for %q written to a %s stream", seg.comp, s.opts.Compression)
	case seg.Size < 0:
		return fmt.Errorf("zseg: segment of negative size %d", seg.Size)
	}
	if s.opts.Compression == Gzip && !s.begun {
		if err := s.write(gzipHeader[:], "gzip header"); err != nil {
			return err
		}
	}
	s.begun = true
	if err := s.write(seg.Data, "segment"); err != nil {
		return err
	}
	if s.opts.Compression == Gzip {
		s.crc = crc32Combine(s.crc, seg.crc, uint64(seg.Size))
	}
	s.size += seg.Size
	return nil
}

// Close ends the stream: for gzip the final block and the trailer (CRC-32
// and size), for zstd an empty frame if no data was written. It does not
// close the underlying writer. Closing again does nothing.
func (s *Stream) Close() error {
	if s.err != nil || s.closed {
		return s.err
	}
	s.closed = true
	switch s.opts.Compression {
	case Gzip:
		var b [len(gzipHeader) + len(deflateEnd) + 8]byte
		end := b[:0]
		if !s.begun {
			end = append(end, gzipHeader[:]...)
		}
		end = append(end, deflateEnd[:]...)
		end = binary.LittleEndian.AppendUint32(end, s.crc)
		end = binary.LittleEndian.AppendUint32(end, uint32(s.size))
		return s.write(end, "gzip trailer")
	case Zstd:
		if !s.begun {
			return s.write(zstdEmptyFrame[:], "empty zstd frame")
		}
	}
	return nil
}

// write writes p to the underlying writer; a failure, named by what, is
// kept and returned from then on.
func (s *Stream) write(p []byte, what string) error {
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = fmt.Errorf("zseg: writing %s: %w", what, err)
	}
	return s.err
}
