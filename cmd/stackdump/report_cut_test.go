package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A gzipped dump cut short (a copy taken while it was written) reads as a
// truncated dump and an error. report, like analyze, writes the page of
// what was read, marked truncated, and then fails; it used to write
// nothing at all.
func TestReportCommandCutGzip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "demo_go126.txt"))
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
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.txt.gz")
	if err := os.WriteFile(cut, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	_, _, err = runCLI(t, "report", "-q", "-o", page, cut)
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("report of a cut gzip file: error %v; want the gzip error", err)
	}
	written, rerr := os.ReadFile(page)
	if rerr != nil {
		t.Fatalf("no page written: %v", rerr)
	}
	doc := decodeReport(t, written)
	if len(doc.Inputs) != 1 || doc.Inputs[0].Total == 0 || doc.Inputs[0].Total >= 315 || !doc.Inputs[0].Truncated {
		t.Errorf("page holds %+v; want one truncated dump with part of the 315 goroutines", doc.Inputs)
	}
}
