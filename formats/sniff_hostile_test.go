package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// Wrappings FuzzSniffAndRead applies to its input before reading it.
const (
	wrapNone uint8 = iota
	wrapGzip
	wrapZstd
	wrapGzipZstd // zstd inside gzip
	wrapCount
)

// sniffSeeds returns the first bytes of every dump in testdata, of every
// format; big files are cut so the fuzzer stays quick.
func sniffSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	for _, data := range dumptest.ReadSeeds(tb,
		"../testdata/corpus/go/*.txt", "../testdata/corpus/go/malformed/*.txt", "../testdata/corpus/jvm/*",
		"../testdata/go/*.txt", "../testdata/debug1/*.txt", "../testdata/json/*.json", "../testdata/jvm/*.txt", "../testdata/jvm/*.json",
	) {
		seeds = append(seeds, data[:min(len(data), 2<<10)])
	}
	seeds = append(seeds, dumptest.ReadSeeds(tb, "../testdata/trace/*.trace")...) // whole: a cut trace is only an error
	// gzip as served by net/http/pprof
	seeds = append(seeds, dumptest.ReadSeeds(tb, "../testdata/corpus/go/*.pb.gz", "../testdata/pprof/*.pb.gz")...)
	return seeds
}

// wrapInput compresses data as w says.
func wrapInput(tb testing.TB, data []byte, w uint8) []byte {
	switch w % wrapCount {
	case wrapGzip:
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		return b.Bytes()
	case wrapZstd:
		return fuzzZstd.EncodeAll(data, nil)
	case wrapGzipZstd:
		return wrapInput(tb, wrapInput(tb, data, wrapZstd), wrapGzip)
	}
	return data
}

// fuzzZstd compresses FuzzSniffAndRead's inputs; EncodeAll may be called
// concurrently and needs no Close.
var fuzzZstd, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

// sniffRead is what reading an input gave, in a form two readings can be
// compared by: one line per dump, routine and warning, then the error that
// stopped reading.
type sniffRead struct {
	kind    stack.Kind
	summary []string
	err     error
}

// fuzzSniffLimits keep the fuzzer fast on inputs that inflate.
var fuzzSniffLimits = ReadOptions{MaxLineBytes: 4 << 10, MaxDecompressedBytes: 1 << 20}

// sniffInput is what is known of an input's decompressed bytes: all of
// them (plain), or only a bound on their size.
type sniffInput struct {
	plain []byte // nil when unknown
	size  int64
	lines int // 0 when unknown
}

func knownInput(plain []byte) sniffInput {
	return sniffInput{plain: plain, size: int64(len(plain)), lines: bytes.Count(plain, []byte("\n")) + 1}
}

// readSniffed reads data through the sniffing path and checks what must
// hold for any input: no panic, a known kind, routines with a stack and a
// count, every warning positioned within the input and quoting its text,
// a terminal error that is sticky.
func readSniffed(t *testing.T, data []byte, opts ReadOptions, in sniffInput) sniffRead {
	return readSniffedFrom(t, NewReader(bytes.NewReader(data), opts), data, in)
}

// readSniffedFrom is readSniffed with the Reader of data given.
func readSniffedFrom(t *testing.T, rd *Reader, data []byte, in sniffInput) sniffRead {
	t.Helper()
	var out sniffRead
	for dumps := 0; ; dumps++ {
		if dumps > len(data)+1 {
			t.Fatalf("%d dumps from %d bytes: the reader does not advance", dumps, len(data))
		}
		d, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			if _, again := rd.Next(); again == nil || again.Error() != err.Error() {
				t.Fatalf("error not sticky: %v, then %v", err, again)
			}
			out.err = err
			break
		}
		out.summary = append(out.summary, fmt.Sprintf("dump %s preamble=%d", d.Source.Kind, len(d.Preamble)))
		var sum int64
		for r, err := range rd.Routines() {
			if err != nil {
				var pe *stack.ParseError
				if !errors.As(err, &pe) {
					continue // a stopping error: Next returns it
				}
				checkPositioned(t, pe, in)
				continue
			}
			if r == nil || r.Stack == nil || r.Count < 1 {
				t.Fatalf("routine without a stack or a count: %+v", r)
			}
			sum += r.Count
			out.summary = append(out.summary, fmt.Sprintf("routine id=%d count=%d frames=%d line=%d", r.ID, r.Count, len(r.Stack.Frames), r.Line))
		}
		for _, w := range d.Warnings {
			if rd.Kind() != stack.KindJSON { // a document's warnings are its original input's
				checkPositioned(t, w, in)
			}
			out.summary = append(out.summary, "warning "+w.Error())
		}
		out.summary = append(out.summary, fmt.Sprintf("end total=%d truncated=%v", d.Total, d.Truncated))
	}
	if out.kind = rd.Kind(); out.kind != "" {
		if _, err := newSource(&codec.Stream{Kind: out.kind}, ReadOptions{Table: stack.NewTable()}); err != nil {
			t.Fatalf("sniffed an unknown kind %q", out.kind)
		}
	}
	return out
}

func checkPositioned(t *testing.T, pe *stack.ParseError, in sniffInput) {
	t.Helper()
	if pe.Msg == "" || pe.Line < 0 || pe.Offset < 0 || pe.Offset > in.size || in.lines > 0 && pe.Line > in.lines {
		t.Fatalf("warning outside the input (%d bytes, %d lines): %+v", in.size, in.lines, pe)
	}
	if in.plain != nil && pe.Line > 0 && !bytes.Contains(in.plain, []byte(pe.Text)) {
		t.Fatalf("warning quotes text that is not in the input: %+v", pe)
	}
}

// FuzzSniffAndRead feeds NewReader arbitrary bytes with nothing forced:
// compression sniffing, format sniffing and whichever reader they pick.
// Besides readSniffed's checks, compression must be transparent: the input
// wrapped in gzip, zstd or both reads exactly as the plain input does.
func FuzzSniffAndRead(f *testing.F) {
	for _, s := range sniffSeeds(f) {
		f.Add(s, wrapNone, uint16(0))
		if len(s) < 1<<10 || s[0] == '{' {
			f.Add(s, wrapGzipZstd, uint16(60))
		}
	}
	good := []byte("goroutine 1 [running]:\nmain.main()\n\t/m.go:3 +0x1\n")
	f.Add(wrapInput(f, good, wrapGzip), wrapNone, uint16(0))
	f.Add(wrapInput(f, good, wrapZstd), wrapNone, uint16(0))
	gz := wrapInput(f, good, wrapGzip)
	f.Add(gz[:len(gz)/2], wrapNone, uint16(0))                      // cut mid-stream
	f.Add(append(gz[:len(gz):len(gz)], gz...), wrapNone, uint16(0)) // two members
	f.Add([]byte("\x1f\x8b"), wrapNone, uint16(0))
	f.Add([]byte("\x28\xb5\x2f\xfd"), wrapNone, uint16(0))
	f.Add([]byte("go 1.23 trace\x00\x00\x00"), wrapNone, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, wrap uint8, maxLine uint16) {
		opts := fuzzSniffLimits
		if maxLine != 0 {
			opts.MaxLineBytes = int(maxLine)
		}
		in := knownInput(data)
		compressed := bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(data, zstdMagic)
		if compressed {
			in = sniffInput{size: opts.MaxDecompressedBytes}
		}
		plain := readSniffed(t, data, opts, in)
		// Read from memory, an input must read the same.
		if mem := readSniffedFrom(t, NewReaderBytes(data, opts), data, in); !reflect.DeepEqual(mem, plain) {
			t.Fatalf("read from memory:\n%+v\nthrough a reader:\n%+v", mem, plain)
		}
		if wrap%wrapCount == wrapNone || len(data) > 64<<10 || compressed {
			return
		}
		wrapped := readSniffed(t, wrapInput(t, data, wrap), opts, in)
		if plain.kind != wrapped.kind {
			t.Fatalf("sniffed %s plain, %s wrapped", plain.kind, wrapped.kind)
		}
		if p, w := strings.Join(plain.summary, "\n"), strings.Join(wrapped.summary, "\n"); p != w {
			t.Fatalf("wrapping changed what was read:\nplain:\n%s\nwrapped:\n%s", p, w)
		}
		if (plain.err == nil) != (wrapped.err == nil) {
			t.Fatalf("error plain %v, wrapped %v", plain.err, wrapped.err)
		}
	})
}

// TestSniffCompressedCorpus reads every seed plain, gzipped, zstd'd and
// doubly compressed, and expects the same dumps (or error) from each.
func TestSniffCompressedCorpus(t *testing.T) {
	for _, s := range sniffSeeds(t) {
		in := knownInput(s)
		if bytes.HasPrefix(s, gzipMagic) {
			in = sniffInput{size: fuzzSniffLimits.MaxDecompressedBytes}
		}
		plain := readSniffed(t, s, fuzzSniffLimits, in)
		if plain.err == nil && len(plain.summary) == 0 {
			t.Fatalf("%.40q: nothing read", s)
		}
		for _, w := range []uint8{wrapGzip, wrapZstd, wrapGzipZstd} {
			got := readSniffed(t, wrapInput(t, s, w), fuzzSniffLimits, in)
			if got.kind != plain.kind || strings.Join(got.summary, "\n") != strings.Join(plain.summary, "\n") {
				t.Fatalf("wrap %d of %.40q: %s %d lines, plain %s %d lines", w, s, got.kind, len(got.summary), plain.kind, len(plain.summary))
			}
			// A seed may be refused on purpose (a Go 1.22 trace): the
			// same way, compressed or not.
			if fmt.Sprint(got.err) != fmt.Sprint(plain.err) {
				t.Fatalf("wrap %d of %.40q: error %v, plain %v", w, s, got.err, plain.err)
			}
		}
	}
}
