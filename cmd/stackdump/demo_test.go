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
	leaks, rest, _ := strings.Cut(out, "Likely leaks")
	if !strings.Contains(leaks, "goroutines in") || !strings.Contains(rest, "chan send") {
		t.Fatalf("no likely leaks in\n%s", out)
	}
	suspects, _, _ := strings.Cut(rest, "\n\n")
	if !strings.Contains(suspects, "demo.(*Service).fetchQuote") || strings.Contains(suspects, "workerPool") {
		t.Errorf("the leak is fetchQuote, not the pool:\n%s", suspects)
	}
	_, contention, _ := strings.Cut(out, "Lock contention: 12 goroutines waiting")
	if first, _, _ := strings.Cut(contention, "\n\n"); !strings.Contains(first, "sync.Mutex") || !strings.Contains(first, "demo.(*priceCache).Get") {
		t.Errorf("no contention on the price cache in\n%s", out)
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
