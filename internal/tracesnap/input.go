package tracesnap

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// input is the trace being read: a byte slice (batches are sliced out of
// it, not copied) or a buffered reader (each batch is copied out). off
// counts the bytes consumed, for error messages.
type input struct {
	b   []byte
	r   *bufio.Reader
	off int64
}

var errShort = errors.New("unexpected end of trace")

func (in *input) byte() (byte, error) {
	if in.r != nil {
		c, err := in.r.ReadByte()
		if err == nil {
			in.off++
		}
		return c, err
	}
	if len(in.b) == 0 {
		return 0, io.EOF
	}
	c := in.b[0]
	in.b = in.b[1:]
	in.off++
	return c, nil
}

func (in *input) uvarint() (uint64, error) {
	if in.r != nil {
		var n int64
		v, err := binary.ReadUvarint(byteCounter{in.r, &n})
		in.off += n
		if err == io.EOF {
			err = errShort
		}
		return v, err
	}
	v, n := binary.Uvarint(in.b)
	if n <= 0 {
		if n == 0 {
			return 0, errShort
		}
		return 0, errors.New("varint overflows 64 bits")
	}
	in.b = in.b[n:]
	in.off += int64(n)
	return v, nil
}

// bytes returns the next n bytes.
func (in *input) bytes(n int) ([]byte, error) {
	if in.r != nil {
		p := make([]byte, n)
		k, err := io.ReadFull(in.r, p)
		in.off += int64(k)
		if err != nil {
			return nil, fmt.Errorf("%d of %d bytes: %w", k, n, errShort)
		}
		return p, nil
	}
	if len(in.b) < n {
		k := len(in.b)
		in.off += int64(k)
		in.b = nil
		return nil, fmt.Errorf("%d of %d bytes: %w", k, n, errShort)
	}
	p := in.b[:n:n]
	in.b = in.b[n:]
	in.off += int64(n)
	return p, nil
}

type byteCounter struct {
	r *bufio.Reader
	n *int64
}

func (c byteCounter) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		*c.n++
	}
	return b, err
}

// uvarintAt reads a uvarint from b at i, returning the value and the index
// after it, or ok false when b holds no complete varint there.
func uvarintAt(b []byte, i int) (v uint64, next int, ok bool) {
	// Most values of a trace (time deltas, ids, statuses) take one to
	// three bytes: those in straight-line code.
	if i+2 < len(b) {
		c0 := b[i]
		if c0 < 0x80 {
			return uint64(c0), i + 1, true
		}
		c1 := b[i+1]
		if c1 < 0x80 {
			return uint64(c0&0x7f) | uint64(c1)<<7, i + 2, true
		}
		if c2 := b[i+2]; c2 < 0x80 {
			return uint64(c0&0x7f) | uint64(c1&0x7f)<<7 | uint64(c2)<<14, i + 3, true
		}
	}
	if i >= len(b) {
		return 0, 0, false
	}
	v, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, 0, false
	}
	return v, i + n, true
}
