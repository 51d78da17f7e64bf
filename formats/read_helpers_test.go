package formats_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// Readers of test files through the door, shared by the door tests. They
// came with the debug1 and pprof tests, which moved to their codecs'
// packages (each keeps its own copy).

// readDebug1File reads every dump of the file at path, failing the test
// on any error.
func readDebug1File(t *testing.T, path string, opts formats.ReadOptions) []*stack.Dump {
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

// readFirstDump reads the file at path and returns its first dump,
// failing the test on any error.
func readFirstDump(t *testing.T, path string) *stack.Dump {
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
