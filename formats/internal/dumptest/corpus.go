package dumptest

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusFiles lists the repository's real dumps matching the patterns
// (relative to its testdata directory), wherever the test runs from.
func CorpusFiles(t testing.TB, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, pattern := range patterns {
		m, err := filepath.Glob(filepath.Join(Testdata(t), pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no corpus files match %v", patterns)
	}
	return files
}

// Testdata returns the repository's testdata directory: the one beside
// the go.mod of the module, above the test's directory.
func Testdata(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
