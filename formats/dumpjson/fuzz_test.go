package dumpjson

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// FuzzJSONReader feeds the JSON reader arbitrary input. It must not panic,
// every error must name an offset within the input, and whatever it reads
// without complaint must come back unchanged when written and read again.
func FuzzJSONReader(f *testing.F) {
	for _, data := range dumptest.ReadSeeds(f, filepath.Join("..", "..", "testdata", "json", "*.json")) {
		if len(data) > 8<<10 {
			continue // large documents slow the fuzzer more than they teach it
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		f.Add([]byte(gjsonPretty(data)))
	}
	f.Add([]byte(`{"format":"stackdump/v1","goroutines":[{"id":1,"stack":[{"func":"a","offset":1}],"elided":{"at":1}}],"source":{"kind":"x"},"preamble":[]}`))
	f.Add([]byte(`{"format":"stackdump/v1","source":{"kind":"jvm-text"},"preamble":["a"],"goroutines":[],"truncated":false,"warnings":[],"total":0,"epilogue":["Found one Java-level deadlock:","x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dumps, clean := fuzzReadJSON(t, data, 2048)
		if !clean || !utf8.Valid(data) {
			return
		}
		for _, d := range dumps {
			if d.Total == 0 {
				d.Total = fuzzCount(d)
			}
		}
		var buf bytes.Buffer
		enc := NewEncoder(&buf)
		for _, d := range dumps {
			if err := stack.WriteDump(enc, d); err != nil {
				t.Fatal(err)
			}
		}
		again, clean := fuzzReadJSON(t, buf.Bytes(), 1<<20)
		if !clean {
			t.Fatalf("our own output read with complaints")
		}
		dumptest.EqualDumps(t, "fuzz round trip", dumps, again, dumptest.DescribeOptions{Lines: true, Warnings: true})
	})
}

// fuzzReadJSON reads every dump of data, checking that each error is
// positioned inside it; clean reports that nothing was wrong.
func fuzzReadJSON(t *testing.T, data []byte, maxLine int) ([]*stack.Dump, bool) {
	rd := NewReader(bytes.NewReader(data), ReadOptions{MaxLineBytes: maxLine})
	var dumps []*stack.Dump
	clean := true
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return dumps, clean
		}
		if err != nil {
			fuzzCheckPositioned(t, err, len(data))
			return dumps, false
		}
		dumps = append(dumps, d)
		for r, err := range rd.Routines() {
			if err != nil {
				fuzzCheckPositioned(t, err, len(data))
				clean = false
				continue
			}
			if r.Stack == nil {
				t.Fatal("routine without a stack")
			}
			if r.Values != nil && len(r.Values.Frames) != len(r.Stack.Frames) {
				t.Fatalf("%d values for %d frames", len(r.Values.Frames), len(r.Stack.Frames))
			}
			d.Routines = append(d.Routines, r)
		}
	}
}

func fuzzCheckPositioned(t *testing.T, err error, size int) {
	t.Helper()
	var pe *stack.ParseError
	var se *jsonSyntaxError
	var off int64
	switch {
	case errors.As(err, &pe):
		off = pe.Offset
	case errors.As(err, &se):
		off = se.Offset
	default:
		t.Fatalf("error without a position: %v", err)
	}
	if off < 0 || off > int64(size) {
		t.Fatalf("error at offset %d outside the %d-byte input: %v", off, size, err)
	}
}

func fuzzCount(d *stack.Dump) int64 {
	var n int64
	for _, r := range d.Routines {
		n += r.Goroutines()
	}
	return n
}
