package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command that reads standard input names it "standard input" in its
// errors and warnings, never "-" ("-: no dump found"), with no input and
// with a real dump cut short (a read error and a truncation warning).
func TestStandardInputNamedInMessages(t *testing.T) {
	dir := t.TempDir()
	demo := filepath.Join("..", "..", "testdata", "go", "demo_go126.txt")
	cut, err := os.ReadFile(writeCutGzip(t, demo, dir, "cut.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "-q"},
		{"convert", "-q", "-o", filepath.Join(dir, "out.json")},
		{"analyze", "-q", "-"},
		{"report", "-q", "-o", filepath.Join(dir, "r.html"), "-"},
		{"query", "-q", "-", "total"},
		{"diff", "-q", "-", demo},
		{"diff", "-q", demo, "-"},
		{"timeline", demo, "-"},
	} {
		for _, in := range []struct {
			name  string
			bytes []byte
		}{{"empty", nil}, {"cut", cut}} {
			_, stderr, err := runCLIInput(t, in.bytes, args...)
			if err == nil && in.name == "empty" {
				t.Errorf("%s of an empty standard input: no error", strings.Join(args, " "))
				continue
			}
			msgs := stderr
			if err != nil {
				msgs += "stackdump: " + err.Error() + "\n"
			}
			if !strings.Contains(msgs, "standard input: ") || strings.Contains(msgs, " -: ") {
				t.Errorf("%s of %s standard input says:\n%s", strings.Join(args, " "), in.name, msgs)
			}
		}
	}
}
