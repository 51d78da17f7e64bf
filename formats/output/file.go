package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/internal/words"
)

// outputBufferSize is the size of the one bufio.Writer every output goes
// through: large enough that a dump costs few syscalls, never one per line.
const outputBufferSize = 1 << 20

// Output is a buffered, optionally compressed writer. Close flushes it and
// ends the compressed stream; it does not close the underlying writer.
type Writer struct {
	*bufio.Writer
	comp io.WriteCloser // nil when uncompressed
}

// NewOutput returns an Output writing to w with compression c.
func NewWriter(w io.Writer, c Compression) (*Writer, error) {
	o := &Writer{}
	switch c {
	case "", None:
	case Gzip:
		zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
		if err != nil {
			return nil, err
		}
		o.comp, w = zw, zw
	case Zstd:
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		o.comp, w = zw, zw
	default:
		return nil, fmt.Errorf("unknown compression %q (want none, gzip or zstd)", c)
	}
	o.Writer = bufio.NewWriterSize(w, outputBufferSize)
	return o, nil
}

// Close flushes buffered data and finishes the compressed stream.
func (o *Writer) Close() error {
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
	case "", None:
		return None, nil
	case Gzip, Zstd:
		return c, nil
	case "gz":
		return Gzip, nil
	case "zst":
		return Zstd, nil
	}
	return "", fmt.Errorf("unknown compression %q (want none, gzip or zstd)", s)
}

// FormatHTML names the HTML page of `stackdump report`. It is no dump
// encoding (NewEncoder refuses it); [OutputFor] knows its extension so
// that a report's output name is checked like any other.
const HTML Format = "html"

// formatExtensions maps each file name extension stackdump documents to
// its format.
var formatExtensions = map[string]Format{
	".json":   JSON,
	".txt":    Text,
	".log":    Text,
	".pb":     Pprof,
	".pprof":  Pprof,
	".prof":   Pprof,
	".folded": Folded,
	".html":   HTML,
	".htm":    HTML,
}

// unsupportedCompressions are extensions of compressors stackdump does
// not write: a name ending in one is refused, never written as plain text.
var unsupportedCompressions = map[string]string{
	".bz2": "bzip2", ".xz": "xz", ".lz4": "lz4", ".lzma": "lzma", ".lz": "lzip",
	".br": "brotli", ".sz": "snappy", ".z": "compress", ".zip": "zip", ".7z": "7-zip", ".tgz": "tar+gzip",
}

// splitPath derives format and compression from a file name: "x.json.gz"
// → json, gzip; "x.pb.gz" → pprof, gzip; "x.txt.zst" → text, zstd;
// "x.html" → html. Unknown parts come back empty, with the format
// extension it did not know ("" when there is none, or it knew it) and the
// compression extension stackdump does not write; [OutputFor] refuses
// those.
func splitPath(path string) (f Format, c Compression, unknown, badComp string) {
	c = None
	if path == "" {
		return "", c, "", ""
	}
	name := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(name)
	switch {
	case ext == ".gz":
		c, name = Gzip, strings.TrimSuffix(name, ext)
	case ext == ".zst":
		c, name = Zstd, strings.TrimSuffix(name, ext)
	case unsupportedCompressions[ext] != "":
		return "", c, "", ext
	}
	ext = filepath.Ext(name)
	if f, ok := formatExtensions[ext]; ok {
		return f, c, "", ""
	}
	return "", c, ext, ""
}

// Options are the explicit choices for an output, beyond its file name
// (a command line's format and compression flags, as they were given);
// [For] checks them against the name.
type Options struct {
	// Format is the format asked for, matched case-insensitively among
	// Allowed; empty: the name's, else Allowed's first.
	Format Format
	// Compression is the compression asked for (also "gz" or "zst", as
	// [ParseCompression] reads); empty: the name's, else none.
	Compression Compression
	// Allowed lists the formats the caller writes, the first being the
	// default for a name without extension; nil means [Formats] with text
	// first.
	Allowed []Format
}

// For settles the format and compression of an output from the
// explicit choices in opts and the file name. The name's extensions must
// mean what they say: a format extension (.txt or .log, .json, .pb, .pprof
// or .prof, .folded, .html) picks the format when opts.Format is empty and
// must agree with it when it is not; .gz and .zst pick the compression; a
// compression stackdump does not write (.bz2, .xz, .lz4, …) and, without
// opts.Format, an extension it does not know are errors, never silently
// plain text.
//
// The compression follows the same rule: opts.Compression must agree with
// a .gz or .zst name, and a name that ends in a format extension without
// one says uncompressed, so opts.Compression gzip or zstd is refused for
// "d.txt" (name it "d.txt.gz"). The one exception is pprof's: runtime/pprof
// writes gzipped profiles under .pb, .pprof and .prof names and every
// pprof reader takes both, so such a name also takes gzip (not zstd). A
// name without a known extension ("dump", or "d.dat" with opts.Format)
// says nothing about compression and takes any.
func For(path string, opts Options) (Format, Compression, error) {
	allowed, format, compress := opts.Allowed, string(opts.Format), string(opts.Compression)
	if len(allowed) == 0 {
		allowed = Formats()
	}
	f, c, unknown, badComp := splitPath(path)
	named := f
	base := filepath.Base(path)
	switch {
	case badComp != "":
		return "", "", fmt.Errorf("%s: %s compression is not supported (want .gz or .zst)", base, unsupportedCompressions[badComp])
	case unknown != "" && format == "":
		return "", "", nameError(fmt.Sprintf("%s: unknown extension %q (want %s, or give the format)", base, unknown, words.Or(extensionsOf(allowed))))
	case f != "" && !slices.Contains(allowed, f):
		return "", "", fmt.Errorf("%s: %s name, but this writes %s", base, words.A(string(f)), words.Or(allowed))
	}
	if format != "" {
		ff, err := parseFormatIn(format, allowed)
		if err != nil {
			return "", "", err
		}
		if f != "" && f != ff && (f != Text || ff != Debug1) { // debug=1 is text too
			return "", "", nameError(fmt.Sprintf("%s: %s name, but the format asked for is %s", base, words.A(string(f)), ff))
		}
		f = ff
	}
	if f == "" {
		f = allowed[0]
	}
	if compress != "" {
		want, err := ParseCompression(compress)
		if err != nil {
			return "", "", err
		}
		if err := compressionClash(base, named, c, want); err != nil {
			return "", "", err
		}
		c = want
	}
	return f, c, nil
}

// compressionSuffix is the extension a compression adds to a name.
var compressionSuffix = map[Compression]string{Gzip: ".gz", Zstd: ".zst"}

// compressionClash returns the error for a name, base, whose extensions
// (format named, compression c) contradict the compression asked for,
// want; nil when they agree (see [For]).
func compressionClash(base string, named Format, c, want Compression) error {
	switch {
	case c != None && want != c:
		return nameError(fmt.Sprintf("%s: a %s name, but the compression asked for is %s (name it %s%s)", base, compressionSuffix[c], want,
			strings.TrimSuffix(base, filepath.Ext(base)), compressionSuffix[want]))
	case c == None && named != "" && want != None && (named != Pprof || want != Gzip):
		return nameError(fmt.Sprintf("%s: the name has no %s, but the compression asked for is %s (name it %s%s)", base, compressionSuffix[want], want,
			base, compressionSuffix[want]))
	}
	return nil
}

// parseFormatIn parses a format's name among allowed.
func parseFormatIn(s string, allowed []Format) (Format, error) {
	for _, f := range allowed {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, words.Or(allowed))
}

// extensionsOf lists the extensions of formats, in the order of formats.
func extensionsOf(fs []Format) []string {
	var out []string
	for _, f := range fs {
		var exts []string
		for ext, ef := range formatExtensions {
			if ef == f {
				exts = append(exts, ext)
			}
		}
		slices.Sort(exts)
		out = append(out, exts...)
	}
	return slices.Compact(out)
}

// Extension returns the file name extension of format f with compression
// c, the inverse of reading a name in [For]: ".txt", ".json.gz",
// ".pb.zst".
func Extension(f Format, c Compression) string {
	var ext string
	switch f {
	case JSON:
		ext = ".json"
	case Pprof:
		ext = ".pb"
	case Folded:
		ext = ".folded"
	case HTML:
		ext = ".html"
	default: // text and debug1 are both text dumps
		ext = ".txt"
	}
	switch c {
	case Gzip:
		ext += ".gz"
	case Zstd:
		ext += ".zst"
	}
	return ext
}

// ErrName is what For's errors about a name are (errors.Is): a name
// whose extension contradicts the format or compression asked for, or
// that it does not know. Their text says which, in the library's words; a
// command line says its flags instead.
var ErrName = errors.New("output: the name contradicts the output asked for")

// nameError is one of For's errors about a name.
type nameError string

func (e nameError) Error() string        { return string(e) }
func (e nameError) Is(target error) bool { return target == ErrName }
