package gotext

import (
	"os"
	"strings"
	"testing"
)

// CrashOf and CrashWatch on crashes printed by other Go versions and other
// tools' corpora: old signal lines ("[signal 0xb …]"), created-by without
// ids, a go test timeout of an older testing package.
func TestCrashOfOtherVersions(t *testing.T) {
	for _, c := range []struct {
		path      string
		kind      CrashKind
		message   string // first line
		lines     int
		goroutine int64
	}{
		// Go 1.20 does not indent a panic value's second line.
		{"../../testdata/go/panic_go120.txt", CrashPanic, "old toolchain", 2, 1},
		{"../../testdata/go/panic_go121.txt", CrashPanic, "", 0, 1},
		// A nil dereference turned into a run-time panic is a panic; its
		// "[signal SIGSEGV …]" line is the message's second line.
		{"../../testdata/corpus/go/gotfmt_nil.txt", CrashPanic, "runtime error: invalid memory address or nil pointer dereference", 2, 4},
		// A fault that did not become a panic (Go 1.4's GC, with PC=).
		{"../../testdata/corpus/go/gotfmt_go7725.txt", CrashSignal, "SIGSEGV: segmentation violation", 1, 0},
		{"../../testdata/corpus/go/gotfmt_sigabrt.txt", CrashSignal, "SIGABRT: abort", 1, 0},
		{"../../testdata/corpus/go/gotfmt_deadlock.txt", CrashDeadlock, "all goroutines are asleep - deadlock!", 1, 0},
		{"../../testdata/corpus/go/gotfmt_timeout.txt", CrashTimeout, "test timed out after 1s", 1, 0},
	} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		dumps, err := readAll(f, ReadOptions{})
		f.Close()
		if err != nil || len(dumps) == 0 {
			t.Fatalf("%s: %v", c.path, err)
		}
		d := dumps[0]
		crash := CrashOf(d.Preamble)
		if crash == nil {
			t.Errorf("%s: no crash in %q", c.path, d.Preamble)
			continue
		}
		first, _, _ := strings.Cut(crash.Message, "\n")
		if n := strings.Count(crash.Message, "\n") + 1; c.lines != 0 && n != c.lines {
			t.Errorf("%s: message of %d lines, want %d: %q", c.path, n, c.lines, crash.Message)
		}
		if crash.Kind != c.kind || c.message != "" && first != c.message {
			t.Errorf("%s: %s %q, want %s %q", c.path, crash.Kind, first, c.kind, c.message)
		}
		var w CrashWatch
		for _, r := range d.Routines {
			w.Add(r)
		}
		var id int64
		if r := w.Culprit(crash); r != nil {
			id = r.ID
		}
		if id != c.goroutine {
			t.Errorf("%s: culprit goroutine %d, want %d", c.path, id, c.goroutine)
		}
	}
	// Dumps that are no crash: runtime.Stack, a debug=2 profile.
	for _, path := range []string{"../../testdata/go/stacks2_go126.txt", "../../testdata/go/debug2_go126.txt"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dumps, err := readAll(f, ReadOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if c := CrashOf(dumps[0].Preamble); c != nil {
			t.Errorf("%s: crash %+v", path, c)
		}
	}
}

// TestCrashOfEmptyLines reads preambles holding empty lines (a panic
// value ending in a newline, a log with blank lines) without panicking.
func TestCrashOfEmptyLines(t *testing.T) {
	for _, pre := range [][]string{{"panic: boom", ""}, {"", "panic: boom", ""}, {"fatal error: x", "", ""}} {
		c := CrashOf(pre)
		if c == nil || c.Message == "" {
			t.Errorf("CrashOf(%q) = %+v, want a crash with its message", pre, c)
		}
	}
}
