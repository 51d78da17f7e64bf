package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diff compares the first dump of a file; when the file holds more, it
// says so on standard error (it used to be silent), from a file and from
// standard input, and says nothing for a file of one dump.
func TestDiffWarnsOfMoreDumps(t *testing.T) {
	two := filepath.Join("..", "..", "testdata", "go", "stacks2_go126.txt") // two runtime.Stack dumps
	one := filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")
	_, stderr, err := runCLI(t, "diff", "-q", two, one)
	if err != nil {
		t.Fatal(err)
	}
	if want := "stackdump: warning: " + two + " holds 2 dumps; diff compares the first\n"; !strings.Contains(stderr, want) {
		t.Errorf("diff of a file of two dumps: standard error %q; want %q", stderr, want)
	}
	data, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLIInput(t, data, "diff", "-q", one, "-")
	if err != nil {
		t.Fatal(err)
	}
	if want := "stackdump: warning: standard input holds 2 dumps; diff compares the first\n"; !strings.Contains(stderr, want) {
		t.Errorf("diff of standard input of two dumps: standard error %q; want %q", stderr, want)
	}
	_, stderr, err = runCLI(t, "diff", "-q", one, one)
	if err != nil || strings.Contains(stderr, "holds") {
		t.Errorf("diff of files of one dump: %v, standard error %q", err, stderr)
	}
}

// A file whose second dump is cut (a gzip copy taken while it was
// written) still has its first compared; the warning counts the dumps
// begun and names the read error that ended the count.
func TestDiffWarnsOfCutSecondDump(t *testing.T) {
	two := filepath.Join("..", "..", "testdata", "go", "stacks2_go126.txt")
	one := filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")
	data, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	second := bytes.LastIndex(data, []byte("goroutine 1 [running]:"))
	if second <= 0 {
		t.Fatal("the fixture holds one dump")
	}
	cut := writeFlushedGzip(t, data[:second+(len(data)-second)/2], "cut.txt.gz")
	_, stderr, err := runCLI(t, "diff", "-q", cut, one)
	if err != nil {
		t.Fatal(err)
	}
	if want := cut + " holds at least 2 dumps, then "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "unexpected EOF") {
		t.Errorf("diff of a file cut in its second dump: standard error %q; want %q and the gzip error", stderr, want)
	}
	if strings.Contains(stderr, "counts may be low") {
		t.Errorf("the first dump, whole, is called truncated: %q", stderr)
	}
}

// writeFlushedGzip writes what a gzip writer of data had flushed before it
// was closed (no trailer) to a file named name, and returns its path.
func writeFlushedGzip(t *testing.T, data []byte, name string) string {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A JSON file cut right after its first document: the first dump is whole
// and compared, and the read error after it is named.
func TestDiffWarnsOfCutAfterFirstDump(t *testing.T) {
	two := filepath.Join("..", "..", "testdata", "go", "stacks2_go126.txt")
	one := filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")
	docs, _, err := runCLI(t, "convert", "-q", "--format", "json", two)
	if err != nil {
		t.Fatal(err)
	}
	end := strings.Index(docs, "\n{")
	if end < 0 {
		t.Fatalf("one JSON document: %.100q", docs)
	}
	cut := writeFlushedGzip(t, []byte(docs[:end+1]), "cut.json.gz")
	_, stderr, err := runCLI(t, "diff", "-q", cut, one)
	if err != nil {
		t.Fatal(err)
	}
	if want := cut + ": after the first dump, "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "unexpected EOF") {
		t.Errorf("diff of a JSON file cut after its first dump: standard error %q; want %q and the gzip error", stderr, want)
	}
}
