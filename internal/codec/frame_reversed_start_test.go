package codec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// blockStart's first-byte filter (mayStartBlock) lets through every line
// of the real dumps in testdata that one of its tests matches.
func TestBlockStartFirstBytes(t *testing.T) {
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
		{"debug=1 record", IsDebug1Record, 0},
		{"JVM thread header", IsJVMThreadHeader, 0},
		{"goroutine header", IsGoHeader, 0},
		{"race block", isRaceBlockStart, 0},
	}
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
				if !mayStartBlock[line[0]] || blockStart(line) == nil {
					t.Errorf("%s:%d: a %s that blockStart passes over: %q", path, i+1, tests[k].name, line)
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

// hasGrepSeparator finds what bytes.Contains found for "\n--\n" and
// "\n--\r\n", in the real dumps of testdata and in what the fuzzer makes
// of them.
func FuzzHasGrepSeparator(f *testing.F) {
	for _, dir := range []string{"go", "jvm", "corpus/go"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*.txt"))
		for _, path := range m {
			b, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			head := b[:min(len(b), 4096)]
			f.Add(head)
			// The same with grep's separator line put after its first
			// line, as grep -A/-B/-C prints it, and with a CRLF one.
			if k := bytes.IndexByte(head, '\n'); k >= 0 {
				f.Add(bytes.Join([][]byte{head[:k+1], head[k+1:]}, []byte("--\n")))
				f.Add(bytes.Join([][]byte{head[:k+1], head[k+1:]}, []byte("--\r\n")))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := bytes.Contains(b, []byte("\n--\n")) || bytes.Contains(b, []byte("\n--\r\n"))
		if got := hasGrepSeparator(b); got != want {
			t.Errorf("hasGrepSeparator(%q) = %v, want %v", b, got, want)
		}
	})
}
