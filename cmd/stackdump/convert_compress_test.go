package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// convert -o refuses a --compress the file name contradicts, before
// writing anything: it used to write plain text into x.gz and gzip into
// x.txt.
func TestConvertCompressionClash(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")
	dir := t.TempDir()
	for _, c := range []struct{ name, compress, err string }{
		{"x.gz", "none", "x.gz: a .gz name, but --compress is none (name it x)"},
		{"x.txt", "gzip", "x.txt: the name has no .gz, but --compress is gzip (name it x.txt.gz)"},
		{"x.json.zst", "gzip", "x.json.zst: a .zst name, but --compress is gzip (name it x.json.gz)"},
	} {
		out := filepath.Join(dir, c.name)
		_, _, err := runCLI(t, "convert", "-q", "-o", out, "--compress", c.compress, in)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("convert -o %s --compress %s: error %v; want %q", c.name, c.compress, err, c.err)
		}
		if _, serr := os.Stat(out); !os.IsNotExist(serr) {
			t.Errorf("convert -o %s --compress %s wrote the file (%v)", c.name, c.compress, serr)
		}
	}
	// A name without extension says nothing about compression.
	out := filepath.Join(dir, "dump")
	if _, _, err := runCLI(t, "convert", "-q", "-o", out, "--compress", "gzip", in); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("convert -o dump --compress gzip: %v, not gzip", err)
	}
}
