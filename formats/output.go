package formats

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// OutputBufferSize is the size of the one bufio.Writer every output goes
// through: large enough that a dump costs few syscalls, never one per line.
const OutputBufferSize = 1 << 20

// Output is a buffered, optionally compressed writer. Close flushes it and
// ends the compressed stream; it does not close the underlying writer.
type Output struct {
	*bufio.Writer
	comp io.WriteCloser // nil when uncompressed
}

// NewOutput returns an Output writing to w with compression c.
func NewOutput(w io.Writer, c Compression) (*Output, error) {
	o := &Output{}
	switch c {
	case "", CompressNone:
	case CompressGzip:
		zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
		if err != nil {
			return nil, err
		}
		o.comp, w = zw, zw
	case CompressZstd:
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		o.comp, w = zw, zw
	default:
		return nil, fmt.Errorf("unknown compression %q (want none, gzip or zstd)", c)
	}
	o.Writer = bufio.NewWriterSize(w, OutputBufferSize)
	return o, nil
}

// Close flushes buffered data and finishes the compressed stream.
func (o *Output) Close() error {
	err := o.Flush()
	if o.comp != nil {
		if cerr := o.comp.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// ParseCompression parses a --compress value.
func ParseCompression(s string) (Compression, error) {
	switch c := Compression(strings.ToLower(s)); c {
	case "", CompressNone:
		return CompressNone, nil
	case CompressGzip, CompressZstd:
		return c, nil
	case "gz":
		return CompressGzip, nil
	case "zst":
		return CompressZstd, nil
	}
	return "", fmt.Errorf("unknown compression %q (want none, gzip or zstd)", s)
}

// FromPath derives format and compression from a file name:
// "x.json.gz" → json, gzip; "x.pb.gz" → pprof, gzip; "x.txt.zst" → text, zstd.
// Unknown parts come back empty.
func FromPath(path string) (Format, Compression) {
	name := strings.ToLower(filepath.Base(path))
	comp := CompressNone
	switch filepath.Ext(name) {
	case ".gz":
		comp, name = CompressGzip, strings.TrimSuffix(name, ".gz")
	case ".zst":
		comp, name = CompressZstd, strings.TrimSuffix(name, ".zst")
	}
	switch filepath.Ext(name) {
	case ".json":
		return FormatJSON, comp
	case ".txt", ".log":
		return FormatText, comp
	case ".pb", ".pprof":
		return FormatPprof, comp
	case ".folded":
		return FormatFolded, comp
	}
	return "", comp
}

// OutputFor settles the format and compression of an output from explicit
// choices (empty when not given, as --format and --compress flags are),
// falling back to what the file name's extension says, then to text
// without compression.
func OutputFor(path, format, compress string) (Format, Compression, error) {
	f, c := FromPath(path)
	if format != "" {
		var err error
		if f, err = ParseFormat(format); err != nil {
			return "", "", err
		}
	}
	if f == "" {
		f = FormatText
	}
	if compress != "" {
		var err error
		if c, err = ParseCompression(compress); err != nil {
			return "", "", err
		}
	}
	return f, c, nil
}

// Extension returns the file name extension of format f with compression
// c, the inverse of FromPath: ".txt", ".json.gz", ".pb.zst".
func Extension(f Format, c Compression) string {
	var ext string
	switch f {
	case FormatJSON:
		ext = ".json"
	case FormatPprof:
		ext = ".pb"
	case FormatFolded:
		ext = ".folded"
	default: // text and debug1 are both text dumps
		ext = ".txt"
	}
	switch c {
	case CompressGzip:
		ext += ".gz"
	case CompressZstd:
		ext += ".zst"
	}
	return ext
}
