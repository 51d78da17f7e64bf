package dumptest

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// FailingReader returns Data, then Err.
type FailingReader struct {
	Data []byte
	Err  error
}

// Read returns Data, then Err once Data is used up.
func (f *FailingReader) Read(p []byte) (int, error) {
	if len(f.Data) == 0 {
		return 0, f.Err
	}
	n := copy(p, f.Data)
	f.Data = f.Data[n:]
	return n, nil
}

// GoTextFiles lists the repository's Go traceback inputs: the public
// corpus and the dumps its generators printed (testdata/corpus/go,
// testdata/go).
func GoTextFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"corpus/go/*.txt", "go/*.txt"} {
		m, err := filepath.Glob(filepath.Join(Testdata(t), pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("found only %d Go text inputs", len(files))
	}
	return files
}

// Warnings reads every dump of src and returns the errors it yielded:
// each routine's parse errors, then the error that stopped reading, if
// any.
func Warnings(t testing.TB, src stack.DumpSource) []error {
	t.Helper()
	var ws []error
	for {
		_, err := src.Next()
		if err == io.EOF {
			return ws
		}
		if err != nil {
			return append(ws, err)
		}
		for _, err := range src.Routines() {
			if err != nil {
				ws = append(ws, err)
			}
		}
	}
}
