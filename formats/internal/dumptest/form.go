package dumptest

import (
	"bytes"
	"os"
	"testing"
)

// BlockLine is a kind of line that starts a block of a dump, as a text
// codec's recogniser tells it.
type BlockLine struct {
	Name string
	Is   func([]byte) bool
}

// CheckFormBlocks checks a text codec's codec.Form Block against the real
// dumps of testdata (Go, JVM, debug=1, the corpus): every line (trimmed)
// that one of kinds matches gets a test of the line after it, and every
// kind is met at least once, so that the test shows something.
func CheckFormBlocks(t *testing.T, block func([]byte) func([]byte) bool, kinds ...BlockLine) {
	t.Helper()
	files := CorpusFiles(t, "go/*.txt", "jvm/*.txt", "debug1/*.txt", "corpus/go/*.txt", "corpus/jvm/*.txt")
	seen := make([]int, len(kinds))
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			line = bytes.TrimSpace(line)
			for k, kind := range kinds {
				if !kind.Is(line) {
					continue
				}
				seen[k]++
				if block(line) == nil {
					t.Errorf("%s:%d: a %s that Block passes over: %q", path, i+1, kind.Name, line)
				}
			}
		}
	}
	for k, kind := range kinds {
		if seen[k] == 0 {
			t.Errorf("no %s in %d files of testdata: the test shows nothing for it", kind.Name, len(files))
		}
	}
}
