package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// errDiskGone is the read error that cuts the inputs below.
var errDiskGone = errors.New("disk gone")

// TestParseErrorUnwrapsReadError cuts a real traceback with a read error:
// the dump's "reading stopped" warning is a *ParseError whose cause is the
// read error, for errors.Is.
func TestParseErrorUnwrapsReadError(t *testing.T) {
	data, err := os.ReadFile("../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(&dumptest.FailingReader{Data: data[:len(data)/2], Err: errDiskGone}, ReadOptions{Kind: stack.KindGoTraceback})
	ws := dumptest.Warnings(t, rd)
	var found bool
	for _, w := range ws {
		var pe *stack.ParseError
		if errors.As(w, &pe) && strings.Contains(pe.Msg, "reading stopped") {
			found = true
			if !errors.Is(w, errDiskGone) || pe.Unwrap() != errDiskGone {
				t.Errorf("warning %v does not wrap the read error", w)
			}
		}
	}
	if !found {
		t.Fatalf("no reading-stopped warning among %v", ws)
	}
}

// TestDecompressErrorsNamedOnce checks that a decompressor's errors are
// named after it exactly once, however the input is wrapped, and that the
// underlying error is still matched with errors.Is.
func TestDecompressErrorsNamedOnce(t *testing.T) {
	data, err := os.ReadFile("../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	badCRC := func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)-8] ^= 0xff // the CRC-32 of the trailer
		return b
	}
	zst := func(b []byte) []byte {
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		return enc.EncodeAll(b, nil)
	}
	for _, tc := range []struct {
		name   string
		input  []byte
		prefix string
		is     error
	}{
		{"gzip bad checksum", badCRC(gz(data)), "gzip: invalid checksum", kgzip.ErrChecksum},
		{"gzip in gzip, inner cut", gz(gz(data)[:200]), "gzip: unexpected EOF", io.ErrUnexpectedEOF},
		{"gzip in zstd, bad checksum", zst(badCRC(gz(data))), "gzip: invalid checksum", kgzip.ErrChecksum},
		{"zstd cut", zst(data)[:300], "zstd: ", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(bytes.NewReader(tc.input), ReadOptions{Kind: stack.KindGoTraceback})
			var msgs []string
			if err != nil {
				msgs = append(msgs, err.Error())
			}
			if err == nil {
				// A read error that cut the dump is its warning.
				ws := dumptest.Warnings(t, NewReader(bytes.NewReader(tc.input), ReadOptions{Kind: stack.KindGoTraceback}))
				for _, w := range ws {
					if errors.Is(w, tc.is) {
						err = w
						msgs = append(msgs, w.Error())
					}
				}
			}
			if err == nil {
				t.Fatalf("no error matching %v", tc.is)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
			msg := strings.Join(msgs, " | ")
			if !strings.Contains(msg, tc.prefix) {
				t.Errorf("error %q does not say %q", msg, tc.prefix)
			}
			for _, twice := range []string{"gzip: gzip:", "zstd: zstd:"} {
				if strings.Contains(msg, twice) {
					t.Errorf("error %q names its decompressor twice", msg)
				}
			}
		})
	}
}
