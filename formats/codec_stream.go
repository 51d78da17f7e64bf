package formats

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// inputStream is a dump stream after decompression and format sniffing.
type inputStream struct {
	Kind        Kind
	Compression Compression
	// R reads the decompressed bytes.
	R *bufio.Reader

	count *countingReader
	// sniffed is set when Kind was guessed from the bytes, not given.
	sniffed bool
	// mem is the whole input when it is held in memory uncompressed
	// (NewReaderBytes); R reads the same bytes.
	mem []byte
}

// Read reads decompressed bytes.
func (in *inputStream) Read(p []byte) (int, error) { return in.R.Read(p) }

// bytesRead reports how many decompressed bytes were consumed from the
// source so far (including what sits in R's buffer).
func (in *inputStream) bytesRead() int64 {
	if in.mem != nil {
		return int64(len(in.mem)) // all of it is in hand
	}
	return in.count.n
}

// countingReader counts the bytes read through it and keeps the first
// error of its source other than io.EOF with the count at that error, so
// that the error that stops a reader can name where the input broke off.
type countingReader struct {
	r     io.Reader
	n     int64
	err   error // the source's first error, io.EOF aside
	errAt int64 // bytes read before err
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err, c.errAt = err, c.n
	}
	return n, err
}

// rootError is the innermost error err wraps: a decompressor's errors are
// made anew on each read, their cause is the same.
func rootError(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// readError wraps err, an error that stopped reading a dump of the input's
// kind; when it is the source's read error (a compressed stream cut short,
// a disk gone), it names the byte where the input broke off.
func (in *inputStream) readError(err error) error {
	if c := in.count; c != nil && c.err != nil && errors.Is(err, rootError(c.err)) {
		of := ""
		if in.Compression != CompressNone {
			of = " of the decompressed input"
		}
		return fmt.Errorf("reading %s dump: %w (at byte %d%s)", in.Kind, err, c.errAt, of)
	}
	return fmt.Errorf("reading %s dump: %w", in.Kind, err)
}
