package dumpjson_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// benchWrite measures the encoder writing d to io.Discard through an
// Output, as the CLI writes.
func benchWrite(b *testing.B, d *stack.Dump) {
	var size countingWriter
	out, _ := output.NewWriter(&size, output.None)
	enc := dumpjson.NewEncoder(out)
	if err := stack.WriteDump(enc, d); err != nil {
		b.Fatal(err)
	}
	out.Close()
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, _ := output.NewWriter(io.Discard, output.None)
		enc := dumpjson.NewEncoder(out)
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

func BenchmarkWriteJSON(b *testing.B) { benchWrite(b, dumptest.ServerDump(100_000)) }

func BenchmarkReadJSON(b *testing.B) {
	data := doortest.Encode(b, output.JSON, dumptest.ServerDump(100_000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd := dumpjson.NewReader(bytes.NewReader(data), dumpjson.ReadOptions{})
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, err := range rd.Routines() {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		if n != 100_000 {
			b.Fatalf("read %d routines", n)
		}
	}
}
