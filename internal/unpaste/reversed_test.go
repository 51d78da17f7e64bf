package unpaste

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

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
