package jvm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The first-byte filter of Form's Block lets through every line of the
// real dumps in testdata that is a thread header.
func TestFormBlockFirstBytes(t *testing.T) {
	var files []string
	for _, dir := range []string{"go", "jvm", "debug1", "corpus/go", "corpus/jvm"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*.txt"))
		files = append(files, m...)
	}
	tests := []struct {
		name string
		is   func([]byte) bool
		seen int
	}{
		{"JVM thread header", isThreadHeader, 0},
	}
	block := Form().Block
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			line = bytes.TrimSpace(line)
			for k := range tests {
				if !tests[k].is(line) {
					continue
				}
				tests[k].seen++
				if block(line) == nil {
					t.Errorf("%s:%d: a %s that Block passes over: %q", path, i+1, tests[k].name, line)
				}
			}
		}
	}
	for _, c := range tests {
		if c.seen == 0 {
			t.Errorf("no %s in %d files of testdata: the test shows nothing for it", c.name, len(files))
		}
	}
}
