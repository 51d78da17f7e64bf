package jvm_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

// addJVMSeeds seeds a fuzz target with the JVM files of the corpus and of
// testdata/jvm (large ones cut to their first 16 KiB).
func addJVMSeeds(f *testing.F, files []string) {
	for _, data := range dumptest.LoadSeedFiles(f, files) {
		f.Add(data[:min(len(data), 16<<10)])
	}
}

// checkJVMDumps asserts what every reading must give, whatever the input:
// positioned warnings, totals that match, routines with a stack and a
// thread, frame values aligned with their stack.
func checkJVMDumps(t *testing.T, data []byte, dumps []*stack.Dump) {
	for _, d := range dumps {
		if d.Total != int64(len(d.Routines)) {
			t.Fatalf("Total %d, %d routines", d.Total, len(d.Routines))
		}
		for _, w := range d.Warnings {
			if w.Line < 1 || w.Offset < 0 || w.Offset > int64(len(data)) {
				t.Fatalf("warning without a valid position: %+v", w)
			}
		}
		for _, r := range d.Routines {
			if r.Stack == nil || r.Thread == nil || r.Count != 1 {
				t.Fatalf("incomplete routine %+v", r)
			}
			if r.Values != nil && len(r.Values.Frames) != len(r.Stack.Frames) {
				t.Fatalf("%d frame values for %d frames", len(r.Values.Frames), len(r.Stack.Frames))
			}
		}
	}
}

// FuzzJVMText reads arbitrary text as a JVM thread dump: it must not
// panic, must keep its invariants, and what it read must survive a write
// in jstack form and a second read unchanged.
func FuzzJVMText(f *testing.F) {
	addJVMSeeds(f, jvmCorpusText(f))
	// The forms of issue 38: the agent's dumps, and those refused by name.
	addJVMSeeds(f, dumptest.SeedFiles(f, filepath.Join("..", "..", "testdata", "wild", "*_jdk*"), filepath.Join("..", "..", "testdata", "wild", "*anr*"), filepath.Join("..", "..", "testdata", "wild", "*javacore*")))
	f.Fuzz(func(t *testing.T, data []byte) {
		dumps, err := readText(bytes.NewReader(data), jvm.ReadOptions{MaxLineBytes: 4096})
		if errors.Is(err, stack.ErrNotDump) && len(dumps) == 0 {
			return // a form refused by name (an hs_err log, an ANR trace): nothing read
		}
		if err != nil {
			t.Fatalf("text reader stopped: %v", err)
		}
		checkJVMDumps(t, data, dumps)
		for _, d := range dumps {
			// Positions refer to the input and truncation to its end: neither
			// is written.
			d.Warnings, d.Truncated = nil, false
		}
		text := encodeJVM(t, dumps)
		again, err := readText(bytes.NewReader(text), jvm.ReadOptions{})
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		want := reHeaderLine.ReplaceAllString(renderJVM(dumps), "")
		got := reHeaderLine.ReplaceAllString(renderJVM(again), "")
		if got != want {
			t.Fatalf("round trip changed the model:\n%s\nwritten:\n%s", dumptest.FirstDiff(want, got), text[:min(len(text), 2000)])
		}
	})
}

// FuzzJVMJSON reads arbitrary bytes as a JSON thread dump: no panic,
// invariants kept, and its jstack form written and read without error.
// (JSON strings may hold newlines, which jstack form cannot carry, so the
// models are not compared.)
func FuzzJVMJSON(f *testing.F) {
	addJVMSeeds(f, jvmCorpusJSON(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		dumps, err := readJSON(bytes.NewReader(data), jvm.JSONReadOptions{})
		if err != nil {
			return // not a thread dump at all: a plain error is the right answer
		}
		checkJVMDumps(t, data, dumps)
		text := encodeJVM(t, dumps)
		if _, err := readText(bytes.NewReader(text), jvm.ReadOptions{}); err != nil {
			t.Fatalf("reading the jstack form: %v", err)
		}
	})
}
