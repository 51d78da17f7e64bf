package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression names an on-the-wire compression.
type Compression string

// Supported compressions.
const (
	CompressNone Compression = "none"
	CompressGzip Compression = "gzip"
	CompressZstd Compression = "zstd"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ErrTooLarge is returned when a compressed input inflates past
// ReadOptions.MaxDecompressedBytes.
var ErrTooLarge = errors.New("formats: decompressed input exceeds the size limit")

// Input is a dump stream after decompression and format sniffing.
type Input struct {
	Kind        Kind
	Compression Compression
	// R reads the decompressed bytes.
	R *bufio.Reader

	count *countingReader
}

// Read reads decompressed bytes.
func (in *Input) Read(p []byte) (int, error) { return in.R.Read(p) }

// BytesRead reports how many decompressed bytes were consumed from the
// source so far (including what sits in R's buffer).
func (in *Input) BytesRead() int64 { return in.count.n }

// OpenInput detects gzip or zstd by their magic bytes and decompresses on
// the fly (repeatedly, for doubly compressed inputs), then sniffs the dump
// format unless opts.Kind is set.
func OpenInput(r io.Reader, opts ReadOptions) (*Input, error) {
	limit := opts.MaxDecompressedBytes
	if limit <= 0 {
		limit = defaultMaxDecompressed
	}
	comp := CompressNone
	br := bufio.NewReaderSize(r, 64<<10)
	for range 3 {
		head, _ := br.Peek(4)
		switch {
		case bytes.HasPrefix(head, gzipMagic):
			zr, err := gzip.NewReader(br)
			if err != nil {
				return nil, fmt.Errorf("gzip input: %w", err)
			}
			comp = CompressGzip
			br = bufio.NewReaderSize(&limitedReader{r: zr, left: limit, name: CompressGzip}, 64<<10)
			continue
		case bytes.HasPrefix(head, zstdMagic):
			zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256<<20))
			if err != nil {
				return nil, fmt.Errorf("zstd input: %w", err)
			}
			if comp == CompressNone {
				comp = CompressZstd
			}
			br = bufio.NewReaderSize(&limitedReader{r: zr.IOReadCloser(), left: limit, name: CompressZstd}, 64<<10)
			continue
		}
		break
	}
	cr := &countingReader{r: br}
	in := &Input{Kind: opts.Kind, Compression: comp, count: cr, R: bufio.NewReaderSize(cr, 256<<10)}
	if in.Kind == "" {
		head, err := in.R.Peek(64 << 10)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) && len(head) == 0 {
			// With bytes in hand (a compressed stream cut or corrupt
			// after them) the reader reads them and then meets the error.
			return nil, err
		}
		in.Kind = SniffKind(head)
	}
	return in, nil
}

var (
	reGoHeader   = regexp.MustCompile(`(?m)^\s*goroutine \d+ (?:gp=\S+ m=\S+ (?:mp=\S+ )?)?\[`)
	reDebug1     = regexp.MustCompile(`(?m)^\s*\w+ profile: total \d+`)
	reJVMHeader  = regexp.MustCompile(`(?m)^\s*(?:Full thread dump|"[^"\n]*"\s+(?:#\d+|daemon|prio=|Id=|- Thread t@)|#\d+ "[^"\n]*"|\s+java\.lang\.Thread\.State: )`)
	reRaceHeader = regexp.MustCompile(`(?m)^WARNING: DATA RACE`)
)

// SniffKind guesses a dump's format from its first bytes (after
// decompression). Text inputs are judged by whichever marker comes first,
// so log noise before a dump does not mislead it; text with no marker is
// taken as a Go traceback, whose reader skips junk.
func SniffKind(head []byte) Kind {
	trim := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trim, []byte("go 1.")) && bytes.Contains(trim[:min(len(trim), 16)], []byte(" trace\x00")):
		return KindGoTrace
	case bytes.HasPrefix(trim, []byte("{")):
		if bytes.Contains(trim, []byte(`"threadDump"`)) {
			return KindJVMJSON
		}
		return KindJSON
	case isBinary(head):
		return KindGoPprof
	}
	best, kind := len(head)+1, KindGoTraceback
	for _, c := range []struct {
		re   *regexp.Regexp
		kind Kind
	}{{reGoHeader, KindGoTraceback}, {reRaceHeader, KindGoTraceback}, {reDebug1, KindGoDebug1}, {reJVMHeader, KindJVMText}} {
		if loc := c.re.FindIndex(head); loc != nil && loc[0] < best {
			best, kind = loc[0], c.kind
		}
	}
	return kind
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

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// limitedReader fails with ErrTooLarge rather than stopping silently, so a
// decompression bomb is an error, not a truncated dump. Errors of the
// decompressor it reads are named after it ("zstd: …"): zstd's own do not
// say where they come from.
type limitedReader struct {
	r    io.Reader
	left int64
	name Compression
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF && !strings.HasPrefix(err.Error(), string(l.name)+":") {
		err = fmt.Errorf("%s: %w", l.name, err)
	}
	return n, err
}
