package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -o NAME means what the name says, for every command that writes one.
func TestOutputNamesPickTheFormat(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join("..", "..", "testdata", "go", "repanic_go126.txt")
	other := filepath.Join("..", "..", "testdata", "go", "system_go126.txt")

	isJSON := func(path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not JSON: %.80q", path, b)
		}
	}
	a := filepath.Join(dir, "a.json")
	if _, stderr, err := runCLI(t, "analyze", dump, "-o", a); err != nil {
		t.Fatalf("analyze -o a.json: %v\n%s", err, stderr)
	}
	isJSON(a)
	d := filepath.Join(dir, "d.json")
	if _, stderr, err := runCLI(t, "diff", dump, other, "-o", d); err != nil {
		t.Fatalf("diff -o d.json: %v\n%s", err, stderr)
	}
	isJSON(d)
	txt := filepath.Join(dir, "a.txt")
	if _, stderr, err := runCLI(t, "analyze", dump, "-o", txt); err != nil {
		t.Fatalf("analyze -o a.txt: %v\n%s", err, stderr)
	}
	if b, _ := os.ReadFile(txt); !strings.HasPrefix(string(b), "PANIC  first value") || strings.Contains(string(b), "\x1b[") {
		t.Errorf("analyze -o a.txt wrote %.80q", b)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", dump, "-o", filepath.Join(dir, "r.json")}, "a json name, but this writes html"},
		{[]string{"convert", dump, "-o", filepath.Join(dir, "c.txt.bz2")}, "bzip2 compression is not supported"},
		{[]string{"convert", dump, "-o", filepath.Join(dir, "c.xz")}, "xz compression is not supported"},
		{[]string{"convert", dump, "-o", filepath.Join(dir, "c.lz4")}, "lz4 compression is not supported"},
		{[]string{"convert", dump, "-o", filepath.Join(dir, "c.dat")}, `unknown extension ".dat"`},
		{[]string{"diff", dump, other, "-o", filepath.Join(dir, "d.pb")}, "a pprof name, but this writes text or json"},
		{[]string{"analyze", dump, "-o", filepath.Join(dir, "a.html")}, "an html name, but this writes text or json"},
	} {
		_, stderr, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error()+stderr, c.want) {
			t.Errorf("%v: %v %s; want an error with %q", c.args, err, stderr, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch e.Name() {
		case "a.json", "d.json", "a.txt":
		default:
			t.Errorf("a refused output left %s behind", e.Name())
		}
	}
	for _, ext := range []string{".pprof", ".prof", ".pb.gz"} {
		out := filepath.Join(dir, "c"+ext)
		if _, stderr, err := runCLI(t, "convert", dump, "-o", out); err != nil {
			t.Fatalf("convert -o c%s: %v\n%s", ext, err, stderr)
		}
		stdout, stderr, err := runCLI(t, "analyze", out)
		if err != nil || !strings.Contains(stdout, "go-pprof") || !strings.HasPrefix(stdout, "PANIC  first value") {
			t.Errorf("c%s does not read back as a profile of the panic: %v %s\n%s", ext, err, stderr, stdout)
		}
	}
}
