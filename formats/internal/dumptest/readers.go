package dumptest

import (
	"path/filepath"
	"testing"
)

// FailingReader returns Data, then Err.
type FailingReader struct {
	Data []byte
	Err  error
}

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
