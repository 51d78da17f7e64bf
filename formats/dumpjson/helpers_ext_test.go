package dumpjson_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// The tests of this external package read real dumps of every format and
// write other formats through the door (package formats), as the CLI
// does; these are their helpers.

// writeJSON encodes dumps through the door's NewEncoder and an Output.
func writeJSON(t testing.TB, dumps ...*stack.Dump) []byte {
	t.Helper()
	return encodeAs(t, output.JSON, dumps...)
}

// encodeAs encodes dumps in format f through the door's NewEncoder and an
// Output, as the CLI does.
func encodeAs(t testing.TB, f output.Format, dumps ...*stack.Dump) []byte {
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

// readJSON reads every dump of data through the door as stackdump JSON.
func readJSON(t testing.TB, data []byte, opts formats.ReadOptions) []*stack.Dump {
	t.Helper()
	opts.Kind = stack.KindJSON
	dumps, err := formats.ReadAll(bytes.NewReader(data), opts)
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
	dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

// readTestdata returns the file rel of the repository's testdata.
func readTestdata(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// copyJSON streams the dumps of data to JSON with the door's Copy,
// routine by routine, as `stackdump convert` does.
func copyJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := formats.Copy(dumpjson.NewEncoder(&buf), formats.NewReaderBytes(data, formats.ReadOptions{}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
