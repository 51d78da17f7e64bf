package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestCutInputRule: one rule for input cut short, in every command that
// reads dump files. The demo service's real dump, as text and as
// stackdump JSON (written by convert), plain, gzipped and zstd-compressed,
// is cut at 60% of its bytes (a copy taken while it was written): each
// command does its work on what was read, warns, and exits 0 — a cut
// .json.gz used to exit 1 where a cut .txt exited 0. Damaged gzip (a byte
// flipped: the checksum fails) exits 1.
func TestCutInputRule(t *testing.T) {
	dir := t.TempDir()
	text, err := os.ReadFile(demoDump)
	if err != nil {
		t.Fatal(err)
	}
	jsonOut, _, err := runCLI(t, "convert", "--format", "json", demoDump)
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	zst := func(b []byte) []byte {
		// 64 KiB blocks: a cut stream keeps the blocks before the cut.
		var buf bytes.Buffer
		zw, err := zstd.NewWriter(&buf, zstd.WithWindowSize(64<<10))
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	cut := func(b []byte) []byte { return b[:len(b)*6/10] }
	files := map[string][]byte{
		"cut.txt":      cut(text),
		"cut.json":     cut([]byte(jsonOut)),
		"cut.txt.gz":   cut(gz(text)),
		"cut.json.gz":  cut(gz([]byte(jsonOut))),
		"cut.txt.zst":  cut(zst(text)),
		"cut.json.zst": cut(zst([]byte(jsonOut))),
	}
	damaged := gz(text)
	damaged[len(damaged)/2] ^= 0xff
	files["damaged.txt.gz"] = damaged
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commands := func(in string) [][]string {
		return [][]string{
			{"convert", "-q", in, "-o", filepath.Join(dir, "out.json")},
			{"analyze", "-q", in},
			{"diff", "-q", in, demoDump},
			{"report", "-q", in, "-o", filepath.Join(dir, "out.html")},
			{"timeline", in},
			{"query", "-q", in, "goroutines.#"},
		}
	}
	for name := range files {
		in := filepath.Join(dir, name)
		for _, args := range commands(in) {
			out, stderr, err := runCLI(t, args...)
			if name == "damaged.txt.gz" {
				if err == nil {
					t.Errorf("%s of damaged gzip: no error (exit 0)\n%s", args[0], stderr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s of %s: %v, want exit status 0\n%s", args[0], name, err, stderr)
				continue
			}
			if !strings.Contains(stderr, "warning: "+in+": ") && !(args[0] == "analyze" && strings.Contains(out, "\nTRUNCATED: ")) {
				t.Errorf("%s of %s: no warning naming the input:\n%s", args[0], name, stderr)
			}
			if args[0] == "query" {
				if n := strings.TrimSpace(out); n == "0" || n == "" || n == "315" {
					t.Errorf("query of %s: %s goroutines, want part of the 315", name, n)
				}
			}
		}
	}
}
