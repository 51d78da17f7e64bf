package formats

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// Helpers of the door's tests that read and write through the door, as
// the CLI does (they lived with the JSON tests, now in formats/dumpjson).

// writeJSON encodes dumps through NewEncoder and an Output, as the CLI does.
func writeJSON(t testing.TB, dumps ...*stack.Dump) []byte {
	t.Helper()
	return encodeAs(t, output.JSON, dumps...)
}

// encodeAs encodes dumps in format f through NewEncoder and an Output.
func encodeAs(t testing.TB, f output.Format, dumps ...*stack.Dump) []byte {
	t.Helper()
	var buf bytes.Buffer
	out, err := output.NewWriter(&buf, output.None)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(out, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readJSON reads every dump of data as stackdump JSON.
func readJSON(t testing.TB, data []byte, opts ReadOptions) []*stack.Dump {
	t.Helper()
	opts.Kind = stack.KindJSON
	dumps, err := ReadAll(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return dumps
}

// readCorpusFile reads every dump of a file with the sniffing reader.
func readCorpusFile(t *testing.T, path string) []*stack.Dump {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

// writerBenchDump is the benchmarks' dump of n goroutines parked in a
// few places, like a server.
func writerBenchDump(n int) *stack.Dump { return dumptest.ServerDump(n) }

// benchWrite measures an encoder writing d to io.Discard through an Output.
func benchWrite(b *testing.B, f output.Format, d *stack.Dump) {
	var size countingWriter
	out, _ := output.NewWriter(&size, output.None)
	enc, _ := NewEncoder(out, f)
	if err := stack.WriteDump(enc, d); err != nil {
		b.Fatal(err)
	}
	out.Close()
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, _ := output.NewWriter(io.Discard, output.None)
		enc, _ := NewEncoder(out, f)
		if err := stack.WriteDump(enc, d); err != nil {
			b.Fatal(err)
		}
		if err := out.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// writeText encodes dumps in the text format through the door's
// NewEncoder: each dump in its own form's text.
func writeText(t testing.TB, dumps ...*stack.Dump) string {
	t.Helper()
	return string(encodeAs(t, output.Text, dumps...))
}

// readGoText reads every dump of data with the door, sniffing its form.
func readGoText(t testing.TB, data []byte) []*stack.Dump {
	t.Helper()
	dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return dumps
}
