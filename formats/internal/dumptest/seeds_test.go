package dumptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal and Fatalf record the message
// instead of ending the test, to test helpers that must fail.
type fatalRecorder struct {
	testing.TB
	msgs []string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatal(args ...any) { r.msgs = append(r.msgs, fmt.Sprint(args...)) }

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// TestReadSeedsFailsLoudly checks that a seed glob matching nothing, a
// malformed glob, and a seed that does not load (a directory, an empty
// file, a Git LFS pointer) each fail the test with a message naming it.
func TestReadSeedsFailsLoudly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir.seed"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("empty.txt", "")
	write("pointer.txt", "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n")
	write("good.txt", "goroutine 1 [running]:\n")

	for _, tc := range []struct {
		pattern, name, want string
	}{
		{filepath.Join(dir, "*.trace"), "*.trace", "matches no file"},
		{filepath.Join(dir, "[x"), "[x", "syntax error in pattern"},
		{filepath.Join(dir, "*.seed"), "adir.seed", "is a directory"},
		{filepath.Join(dir, "empty.txt"), "empty.txt", "is empty"},
		{filepath.Join(dir, "pointer.txt"), "pointer.txt", "Git LFS pointer"},
	} {
		rec := &fatalRecorder{TB: t}
		got := ReadSeeds(rec, filepath.Join(dir, "good.txt"), tc.pattern)
		if len(rec.msgs) != 1 || !strings.Contains(rec.msgs[0], tc.want) || !strings.Contains(rec.msgs[0], tc.name) {
			t.Errorf("%s: failures %q, want one saying %q and naming it", tc.pattern, rec.msgs, tc.want)
		}
		if got != nil {
			t.Errorf("%s: %d seeds returned after a failure", tc.pattern, len(got))
		}
	}

	rec := &fatalRecorder{TB: t}
	got := ReadSeeds(rec, filepath.Join(dir, "good.txt"), "../../../testdata/trace/*.trace")
	if len(rec.msgs) != 0 {
		t.Fatalf("failures on good seeds: %q", rec.msgs)
	}
	traces, _ := filepath.Glob("../../../testdata/trace/*.trace")
	if len(got) != 1+len(traces) || string(got[0]) != "goroutine 1 [running]:\n" {
		t.Errorf("got %d seeds, want %d with good.txt first", len(got), 1+len(traces))
	}
}
