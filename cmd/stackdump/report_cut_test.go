package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A gzipped dump cut short (a copy taken while it was written) reads as a
// truncated dump and a warning. report, like analyze, writes the page of
// what was read, marked truncated, and exits 0, as for any cut input
// (inputcut.go); it used to write nothing at all, then to fail.
func TestReportCommandCutGzip(t *testing.T) {
	dir := t.TempDir()
	cut := writeCutGzip(t, filepath.Join("..", "..", "testdata", "go", "demo_go126.txt"), dir, "cut.txt.gz")
	page := filepath.Join(dir, "report.html")
	_, stderr, err := runCLI(t, "report", "-q", "-o", page, cut)
	if err != nil || !strings.Contains(stderr, "unexpected EOF") {
		t.Errorf("report of a cut gzip file: error %v, stderr %q; want a warning with the gzip error", err, stderr)
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
