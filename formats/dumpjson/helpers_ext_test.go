package dumpjson_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/stack"
)

// The tests of this external package read real dumps of every format and
// write other formats through the door (package formats), as the CLI
// does; these are their helpers.

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

// readJSON reads every dump of data through the door as stackdump JSON.
func readJSON(t testing.TB, data []byte, opts formats.ReadOptions) []*stack.Dump {
	t.Helper()
	opts.Kind = stack.KindJSON
	return doortest.ReadBytes(t, data, opts)
}
