// Package doortest holds the helpers of the tests that read and write
// through the door (package formats), as the CLI does: the door's own
// external tests and the codecs' external tests. In-package tests of a
// codec use formats/internal/dumptest instead, which imports no codec.
package doortest

import (
	"bytes"
	"os"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// ReadFile reads every dump of the file at path through the door,
// failing the test on any error.
func ReadFile(t testing.TB, path string, opts formats.ReadOptions) []*stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

// ReadOne reads the file at path through the door and returns its one
// dump, failing the test on an error or another number of dumps.
func ReadOne(t testing.TB, path string, opts formats.ReadOptions) *stack.Dump {
	t.Helper()
	dumps := ReadFile(t, path, opts)
	if len(dumps) != 1 {
		t.Fatalf("%s: %d dumps, want 1", path, len(dumps))
	}
	return dumps[0]
}

// ReadFirst reads the file at path through the door and returns its
// first dump, failing the test on any error or when it holds none.
func ReadFirst(t testing.TB, path string) *stack.Dump {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
	if err != nil || len(dumps) == 0 {
		t.Fatalf("%s: %d dumps, %v", path, len(dumps), err)
	}
	return dumps[0]
}

// ReadBytes reads every dump of data through the door, failing the test
// on any error.
func ReadBytes(t testing.TB, data []byte, opts formats.ReadOptions) []*stack.Dump {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return dumps
}

// Encode writes dumps in format f through the door's NewEncoder and an
// output.Writer, as the CLI does, and returns the bytes.
func Encode(t testing.TB, f output.Format, dumps ...*stack.Dump) []byte {
	t.Helper()
	var buf bytes.Buffer
	out, err := output.NewWriter(&buf, output.None)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := formats.NewEncoder(out, f)
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
