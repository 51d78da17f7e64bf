package formats

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// TestTraceSniffedAndDecompressed is a door test of execution traces:
// the first 64 bytes of a recorded trace are sniffed as one, and a
// gzipped trace is decompressed and read like the plain one. The trace
// reader's own tests are in formats/exectrace.
func TestTraceSniffedAndDecompressed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "trace", "go126.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := sniffKind(raw[:64]); k != stack.KindGoTrace {
		t.Errorf("sniffKind = %q, want %q", k, stack.KindGoTrace)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	plain, err := ReadAll(bytes.NewReader(raw), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zipped, err := ReadAll(&gz, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(zipped) != 1 || len(zipped[0].Routines) != len(plain[0].Routines) || len(plain[0].Routines) == 0 {
		t.Fatalf("gzipped trace read %d dumps, want the %d routines of the plain one", len(zipped), len(plain[0].Routines))
	}
}
