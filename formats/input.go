package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// openInput detects gzip or zstd by their magic bytes and decompresses on
// the fly (repeatedly, for doubly compressed inputs), then sniffs the dump
// format unless opts.Kind is set.
func openInput(r io.Reader, opts ReadOptions) (*codec.Stream, output.Compression, error) {
	limit := opts.MaxDecompressedBytes
	if limit <= 0 {
		limit = codec.DefaultMaxBytes
	}
	comp := output.None
	src := r
	for range 3 {
		// The magic bytes are read and put back in front: the text is
		// buffered once, by the Stream, not twice.
		var magic [4]byte
		n, err := io.ReadFull(src, magic[:])
		head := magic[:n]
		switch {
		case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
			src = io.MultiReader(bytes.NewReader(head), errReader{err}) // met when read
		default:
			src = io.MultiReader(bytes.NewReader(head), src)
		}
		switch {
		case bytes.HasPrefix(head, gzipMagic):
			zr, err := gzip.NewReader(bufio.NewReaderSize(src, 64<<10))
			if err != nil {
				return nil, "", fmt.Errorf("gzip input: %w", err)
			}
			comp = output.Gzip
			src = &limitedReader{r: zr, left: limit, name: output.Gzip}
			continue
		case bytes.HasPrefix(head, zstdMagic):
			zr, err := zstd.NewReader(bufio.NewReaderSize(src, 64<<10), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256<<20))
			if err != nil {
				return nil, "", fmt.Errorf("zstd input: %w", err)
			}
			if comp == output.None {
				comp = output.Zstd
			}
			src = &limitedReader{r: zr.IOReadCloser(), left: limit, name: output.Zstd}
			continue
		}
		break
	}
	in := codec.NewStream(src, opts.Kind, comp != output.None, 256<<10)
	in.HandOver = true // Reader.Next reads on with the next form's reader
	in.Forms = textForms
	if in.Kind == "" {
		head, err := in.R.Peek(64 << 10)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) && len(head) == 0 {
			// With bytes in hand (a compressed stream cut or corrupt
			// after them) the reader reads them and then meets the error.
			return nil, "", err
		}
		if err := refuseSniffed(head); err != nil {
			return nil, "", err
		}
		var f *unpaste.Frame
		in.Kind, f = sniffKind(head)
		in.Sniffed = true
		in.SetFrame(f)
	}
	return in, comp, nil
}

// openMemInput is openInput for an input held in memory: uncompressed, it
// is not copied through buffers (mem), and only a small buffer is made for
// the decoders that read R.
func openMemInput(b []byte, opts ReadOptions) (*codec.Stream, output.Compression, error) {
	if bytes.HasPrefix(b, gzipMagic) || bytes.HasPrefix(b, zstdMagic) {
		return openInput(bytes.NewReader(b), opts)
	}
	kind, sniffed := opts.Kind, false
	var frame *unpaste.Frame
	if kind == "" {
		head := b[:min(len(b), 64<<10)]
		if err := refuseSniffed(head); err != nil {
			return nil, "", err
		}
		kind, frame = sniffKind(head)
		sniffed = true
	}
	// The Go traceback reader cuts its lines from b and never reads R:
	// give it the smallest buffer (a capture reads one input per chunk).
	size := 64 << 10
	if kind == stack.KindGoTraceback {
		size = 16
	}
	in := codec.NewMemStream(b, kind, size)
	in.HandOver = true
	in.Forms = textForms
	in.Sniffed = sniffed
	if sniffed {
		in.SetFrame(frame)
	}
	return in, output.None, nil
}

// refuseSniffed returns the error for an input whose first bytes, head,
// show it is text stackdump does not read as a dump: its grouped text, or
// another profile's text (sniffOtherProfile).
func refuseSniffed(head []byte) error {
	if isGroupedText(head) {
		return ErrGroupedText
	}
	if isELFCore(head) {
		return ErrCoreFile
	}
	return sniffOtherProfile(head)
}

// ErrGroupedText, which wraps stack.ErrNotDump, refuses stackdump's
// grouped text ([WriteGroups] in output.Text) as input: written for
// people, it has no goroutine headers, and read as a traceback it would
// give a wrong dump (its preamble and nothing else). Groups written as
// JSON read back.
var ErrGroupedText = fmt.Errorf("%w: this is stackdump's grouped text, written for people and not read back; groups written as JSON read back", stack.ErrNotDump)

// ErrCoreFile is returned for an ELF core file (gcore's, or the kernel's
// after GOTRACEBACK=crash): a process's memory, not a dump. Its goroutines
// are read by package goproc (OpenCore, then Read), which the door does not
// link; stackdump analyze, convert and report read cores through it.
var ErrCoreFile = fmt.Errorf("%w: this is an ELF core file, a process's memory: its goroutines are read by package goproc (OpenCore, then Read)", stack.ErrNotDump)

// isELFCore reports whether head starts an ELF file of type ET_CORE, of
// either byte order.
func isELFCore(head []byte) bool {
	if len(head) < 18 || string(head[:4]) != "\x7fELF" {
		return false
	}
	switch head[5] { // EI_DATA
	case 1:
		return head[16] == 4 && head[17] == 0
	case 2:
		return head[16] == 0 && head[17] == 4
	}
	return false
}

// isGroupedText reports whether head starts with the first line of
// grouped text (writeGroupsText): "N goroutines in M groups", or threads,
// then the end of the line, " (of N in the dump)" or ", runtime".
func isGroupedText(head []byte) bool {
	line := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	rest, ok := cutCount(line)
	if !ok {
		return false
	}
	var noun bool
	for _, n := range []string{" goroutines in ", " goroutine in ", " threads in ", " thread in "} {
		if r, found := bytes.CutPrefix(rest, []byte(n)); found {
			rest, noun = r, true
			break
		}
	}
	if !noun {
		return false
	}
	if rest, ok = cutCount(rest); !ok {
		return false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(" group"))
	if !ok {
		return false
	}
	rest = bytes.TrimPrefix(rest, []byte("s"))
	return len(rest) == 0 || bytes.HasPrefix(rest, []byte(" (of ")) || bytes.HasPrefix(rest, []byte(", "))
}

// cutCount cuts the decimal digits b starts with; false when there are none.
func cutCount(b []byte) ([]byte, bool) {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return b[n:], n > 0
}

// sniffKind guesses a dump's format from its first bytes (after
// decompression). Text inputs are judged by the first line that marks a
// format, so log noise before a dump does not mislead it; text with no
// marker is taken as a Go traceback, whose reader skips junk. A pasted
// dump is judged through its paste frame (quotes, log prefixes, fences:
// unpaste.Sniff), which is returned for the reader to set aside. Lines
// are judged by the text codecs' forms (textForms). It scans lines with
// plain byte comparisons: sniffing costs microseconds, not a regexp pass
// over 64 KiB.
func sniffKind(head []byte) (stack.Kind, *unpaste.Frame) {
	trim := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trim, []byte("go 1.")) && bytes.Contains(trim[:min(len(trim), 16)], []byte(" trace\x00")):
		return stack.KindGoTrace, nil
	case bytes.HasPrefix(trim, []byte("{")) && !unpaste.IsTestJSON(trim) && !isJSONLogDump(trim) && !isJSONLogLead(trim):
		if bytes.Contains(trim, []byte(`"threadDump"`)) {
			return stack.KindJVMJSON, nil
		}
		return stack.KindJSON, nil
	case isBinary(head):
		return stack.KindGoPprof, nil
	}
	f := unpaste.Sniff(head, textForms)
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if f != nil {
			line = f.Strip(line)
		}
		if k := textForms.LineForm(line); k != "" {
			return k, f
		}
		if f != nil {
			if _, k := textForms.FindForm(line); k != "" {
				return k, f
			}
		}
	}
	return stack.KindGoTraceback, f
}

// isJSONLogLead reports whether head starts with JSON log lines that a
// text dump follows: its first line is a whole JSON object, neither a
// stackdump JSON document (one a line, as convert writes them) nor a JVM
// JSON dump, and a later line of head is a dump's own. The input is judged
// by what it holds, not by its first line: the log lines are frame.
func isJSONLogLead(head []byte) bool {
	first, rest, ok := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimRight(first, " \t\r")
	if !ok || len(first) < 2 || first[len(first)-1] != '}' ||
		bytes.Contains(first, []byte(`"format"`)) || bytes.Contains(first, []byte(`"threadDump"`)) || !json.Valid(first) {
		return false
	}
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimRight(line, "\r")
		if textForms.LineForm(line) != "" {
			return true
		}
		if _, k := textForms.FindForm(line); k != "" {
			return true
		}
	}
	return false
}

// isJSONLogDump reports whether head is a JSON log line holding a dump
// in a string field (unpaste.JSONLogDump): text for the text readers.
func isJSONLogDump(head []byte) bool {
	key, _ := unpaste.JSONLogDump(head, textForms)
	return key != ""
}

// isBinary reports whether head looks like protobuf rather than text: a
// NUL byte or many control bytes in the first KiB.
func isBinary(head []byte) bool {
	head = head[:min(len(head), 1024)]
	ctl := 0
	for _, b := range head {
		if b == 0 {
			return true
		}
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' {
			ctl++
		}
	}
	return len(head) > 0 && ctl*10 > len(head)
}

// limitedReader fails with ErrTooLarge rather than stopping silently, so a
// decompression bomb is an error, not a truncated dump. Errors of the
// decompressor it reads are named after it ("zstd: …"): zstd's own do not
// say where they come from.
type limitedReader struct {
	r    io.Reader
	left int64
	name output.Compression
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, stack.ErrTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF && !namesDecompressor(err, l.name) {
		err = &decompressError{name: l.name, err: err}
	}
	return n, err
}

// decompressError is an error met reading the output of the decompressor
// name, named after it.
type decompressError struct {
	name output.Compression
	err  error
}

func (e *decompressError) Error() string { return string(e.name) + ": " + e.err.Error() }

func (e *decompressError) Unwrap() error { return e.err }

// namesDecompressor reports whether err already names the decompressor
// name: gzip's own errors do ("gzip: invalid header"), and so does an
// error a reader of the same compression named, beneath this one in a
// doubly compressed input.
func namesDecompressor(err error, name output.Compression) bool {
	if name == output.Gzip && (errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum)) {
		return true
	}
	for ; err != nil; err = errors.Unwrap(err) {
		if de, ok := err.(*decompressError); ok && de.name == name {
			return true
		}
	}
	return false
}

// sniffOtherProfile returns the error for a text input whose first line
// that marks a format is the header of a heap, allocs, block or mutex
// profile's text (debug=1), nil for any other input. The header of
// threadcreate and of a program's own profiles (`NAME profile: total N`)
// marks the debug=1 format, whose reader refuses it.
func sniffOtherProfile(head []byte) error {
	for num, off := 1, int64(0); len(head) > 0; num++ {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		trimmed := bytes.TrimRight(bytes.TrimLeft(line, " \t\ufeff"), "\r")
		if textForms.LineForm(trimmed) != "" {
			return nil
		}
		if name := codec.OtherProfileHeader(trimmed); name != "" {
			return codec.NotGoroutineProfile(name, num, off, trimmed)
		}
		off += int64(len(head) - len(rest))
		head = rest
	}
	return nil
}

// errReader returns err from every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
