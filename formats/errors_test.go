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

// warningsOf reads every dump of rd and returns the warnings it reported.
func warningsOf(t *testing.T, rd *Reader) []error {
	t.Helper()
	var ws []error
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return ws
		}
		if err != nil {
			return append(ws, err)
		}
		for _, err := range rd.Routines() {
			if err != nil {
				ws = append(ws, err)
			}
		}
	}
}

// TestParseErrorUnwrapsReadError cuts a real traceback with a read error:
// the dump's "reading stopped" warning is a *ParseError whose cause is the
// read error, for errors.Is.
func TestParseErrorUnwrapsReadError(t *testing.T) {
	data, err := os.ReadFile("../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(&dumptest.FailingReader{Data: data[:len(data)/2], Err: errDiskGone}, ReadOptions{Kind: stack.KindGoTraceback})
	ws := warningsOf(t, rd)
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

// TestParseErrorUnwrapsDebug1Causes breaks the labels and a frame line of
// a real debug=1 profile: the warnings wrap the parser's errors.
func TestParseErrorUnwrapsDebug1Causes(t *testing.T) {
	data, err := os.ReadFile("../testdata/debug1/go1.26.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var labels, frame int
	for i, l := range lines {
		switch {
		case labels == 0 && strings.HasPrefix(l, "# labels: {"):
			labels = i
		case frame == 0 && strings.HasPrefix(l, "#\t0x"):
			frame = i
		}
	}
	if labels == 0 || frame == 0 {
		t.Fatal("the profile has no labels or frame line to break")
	}
	lines[labels] = strings.Replace(lines[labels], "{", "[", 1)
	lines[frame] = strings.Replace(lines[frame], "0x", "", 1)
	ws := warningsOf(t, NewReader(strings.NewReader(strings.Join(lines, "\n")), ReadOptions{Kind: stack.KindGoDebug1}))
	for _, want := range []struct {
		line  int
		cause error
	}{{labels + 1, errDebug1Labels}, {frame + 1, errDebug1PC}} {
		var ok bool
		for _, w := range ws {
			var pe *stack.ParseError
			if errors.As(w, &pe) && pe.Line == want.line {
				ok = true
				if !errors.Is(w, want.cause) {
					t.Errorf("line %d: warning %v does not wrap %v", want.line, w, want.cause)
				}
			}
		}
		if !ok {
			t.Errorf("no warning on line %d among %v", want.line, ws)
		}
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
				ws := warningsOf(t, NewReader(bytes.NewReader(tc.input), ReadOptions{Kind: stack.KindGoTraceback}))
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
