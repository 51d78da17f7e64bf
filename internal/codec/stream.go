package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/stack"
)

// Stream is a dump's bytes as a format's reader takes them: after
// decompression and, when the format was not given, sniffing. It counts
// what was read, so that an error that stops reading can name where the
// input broke off (ReadError).
type Stream struct {
	// Kind is the format the stream is read as.
	Kind stack.Kind
	// Decompressed is set when the bytes come out of a decompressor.
	Decompressed bool
	// R reads the bytes.
	R *bufio.Reader
	// Sniffed is set when Kind was guessed from the bytes, not given.
	Sniffed bool
	// Mem is the whole input when it is held in memory uncompressed
	// (NewMemStream); R reads the same bytes.
	Mem []byte
	// HandOver is set by a caller that reads on with the reader of
	// another form when a text reader stops at a dump of that form
	// (OtherFormError), as the door does. Without it a text reader warns
	// at such a dump's first line and skips the dump as other text.
	HandOver bool
	// Forms are the text forms the stream's readers tell apart (see
	// Form): the door sets every text codec's, so that a reader stops
	// where a dump of another form starts and the paste layer knows every
	// form's lines. Nil means a reader's own form alone.
	Forms Forms

	// lines are the stream's lines, made by the first text reader
	// (NewLines) and shared by the readers it hands the stream on to
	// (OtherFormError).
	lines *Lines
	// frame is what the paste layer learnt of the input's first bytes
	// (an *unpaste.Frame, or nil for none), once known: opaque here.
	frame      any
	frameKnown bool
	count      *countingReader
}

// Lines returns the stream's lines, nil before a reader made them
// (NewLines).
func (in *Stream) Lines() *Lines { return in.lines }

// Frame returns what a paste layer learnt of the input's first bytes
// (SetFrame), and whether it was learnt yet.
func (in *Stream) Frame() (frame any, known bool) { return in.frame, in.frameKnown }

// SetFrame keeps what a paste layer learnt of the input's first bytes
// (internal/unpaste's *Frame, or nil for none), for the reader that makes
// the stream's lines: the door learns it while it sniffs the format.
func (in *Stream) SetFrame(f any) { in.frame, in.frameKnown = f, true }

// Head returns the input's first bytes as far as the first read of the
// source brings them, at most max: what sniffing looks at without waiting
// for a dump streamed to the reader.
func (in *Stream) Head(max int) []byte {
	if in.Mem != nil {
		return in.Mem[:min(len(in.Mem), max)]
	}
	if in.R == nil {
		return nil
	}
	in.R.Peek(1)
	head, _ := in.R.Peek(min(max, in.R.Buffered()))
	return head
}

// NewStream returns a Stream of r read as kind, through a buffer of size
// bytes.
func NewStream(r io.Reader, kind stack.Kind, decompressed bool, size int) *Stream {
	cr := &countingReader{r: r}
	return &Stream{Kind: kind, Decompressed: decompressed, count: cr, R: bufio.NewReaderSize(cr, size)}
}

// NewMemStream returns a Stream of b, an uncompressed input held in
// memory, read as kind; R gets a buffer of size bytes, for the readers
// that do not cut their lines from Mem.
func NewMemStream(b []byte, kind stack.Kind, size int) *Stream {
	s := NewStream(bytes.NewReader(b), kind, false, size)
	s.Mem = b
	return s
}

// StreamOf returns r as a Stream read as kind: r itself when it is one
// (a reader that sniffed or decompressed the input made it), else a
// Stream over r.
func StreamOf(r io.Reader, kind stack.Kind) *Stream {
	if s, ok := r.(*Stream); ok {
		return s
	}
	return NewStream(r, kind, false, 256<<10)
}

// Read reads decompressed bytes.
func (in *Stream) Read(p []byte) (int, error) { return in.R.Read(p) }

// BytesRead reports how many decompressed bytes were consumed from the
// source so far (including what sits in R's buffer).
func (in *Stream) BytesRead() int64 {
	if in.Mem != nil {
		return int64(len(in.Mem)) // all of it is in hand
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

// ReadError wraps err, an error that stopped reading a dump of the input's
// kind; when it is the source's read error (a compressed stream cut short,
// a disk gone), it names the byte where the input broke off.
func (in *Stream) ReadError(err error) error {
	if c := in.count; c != nil && c.err != nil && errors.Is(err, rootError(c.err)) {
		of := ""
		if in.Decompressed {
			of = " of the decompressed input"
		}
		return fmt.Errorf("reading %s dump: %w (at byte %d%s)", in.Kind, err, c.errAt, of)
	}
	return fmt.Errorf("reading %s dump: %w", in.Kind, err)
}
