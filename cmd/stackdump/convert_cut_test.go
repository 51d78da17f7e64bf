package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCutGzip writes the first half of the gzipped file src into dir as
// name: a copy taken while it was written.
func writeCutGzip(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// convert -o of a cut gzip file writes the dump read until the cut, marked
// truncated (a CutMarker line in text, "truncated" in JSON), warns naming
// the byte where the input broke off, and exits 0, as it does to
// standard output and as for any cut input (inputcut.go); it used to
// write nothing, then to exit 1.
func TestConvertCutGzipToFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ src, out string }{
		{filepath.Join("..", "..", "testdata", "go", "demo_go126.txt"), "demo.txt"},
		{filepath.Join("..", "..", "testdata", "go", "demo_go126.txt"), "demo.json.zst"},
		{filepath.Join("..", "..", "testdata", "debug1", "go1.26.8.txt"), "debug1.json"},
		{filepath.Join("..", "..", "testdata", "corpus", "jvm", "local_jdk17.0.15-jstack-l-deadlocks.txt"), "jvm.json"},
	} {
		cut := writeCutGzip(t, c.src, dir, c.out+".in.gz")
		out := filepath.Join(dir, c.out)
		_, stderr, err := runCLI(t, "convert", "-q", "-o", out, cut)
		if err != nil || !strings.Contains(stderr, "unexpected EOF (at byte ") || !strings.Contains(stderr, "the input ends early") {
			t.Errorf("convert -o %s of a cut gzip file: error %v, stderr %q; want a warning with the gzip error and its byte (exit status 0)", c.out, err, stderr)
		}
		if !strings.Contains(stderr, "dump truncated") {
			t.Errorf("convert -o %s: no truncation warning in %q", c.out, stderr)
		}
		dumps := readDumpFile(t, out)
		if len(dumps) != 1 || !dumps[0].Truncated || len(dumps[0].Routines) == 0 {
			t.Errorf("convert -o %s wrote %d dumps; want one truncated dump with routines", c.out, len(dumps))
		}
	}
}
