package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// The whole demo, shortened: the service runs, is captured over HTTP,
// the dump and its report are written and the analysis names the leak and
// the contention.
func TestDemoEndToEnd(t *testing.T) {
	dir := t.TempDir()
	out, stderr, err := runCLI(t, "demo", "--out", dir, "--duration", "1s", "--leak-rate", "200", "--color", "never")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "dump.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("dump.json.gz: %d dumps, %v", len(dumps), err)
	}
	if d := dumps[0]; d.Total < 150 || d.Source.Kind == "" || d.Source.Target == "" {
		t.Errorf("dump.json.gz: %d goroutines, source %+v", d.Total, d.Source)
	}
	heading, rest, _ := strings.Cut(out, "Findings")
	if !strings.Contains(heading, "goroutines in") || !strings.Contains(rest, "LIKELY LEAK (likely)") {
		t.Fatalf("no likely leak in\n%s", out)
	}
	findings, _, _ := strings.Cut(rest, "\n\n")
	_, leak, _ := strings.Cut(findings, "LIKELY LEAK")
	leak, _, _ = strings.Cut(leak, "\n  ")
	if !strings.Contains(leak, "goroutines leak at demo.(*Service).fetchQuote") || strings.Contains(findings, "workerPool") {
		t.Errorf("the leak is fetchQuote, not the pool:\n%s", findings)
	}
	if !strings.Contains(findings, "CONTENTION (certain) 12 goroutines wait for one sync.Mutex at demo.(*priceCache).Get") ||
		!strings.Contains(findings, "in demo.(*priceCache).refresh and does not wait for it: the probable holder") {
		t.Errorf("no contention on the price cache, held by its refresher, in\n%s", out)
	}
	if !strings.Contains(stderr, "wrote "+filepath.Join(dir, "dump.json.gz")+" and "+filepath.Join(dir, "report.html")) {
		t.Errorf("stderr:\n%s", stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.ToLower(string(page)), "<!doctype html>") || !strings.Contains(string(page), "fetchQuote") || !strings.Contains(string(page), "priceCache") {
		t.Errorf("report.html (%d bytes) does not show the demo's goroutines", len(page))
	}
}
