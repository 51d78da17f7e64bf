package gotext

import (
	"os"
	"testing"
)

// A GOTRACEBACK=crash SIGQUIT prints one block per OS thread, separated
// by `-----`; it is one dump of the process: every thread's g0 and all
// goroutines in one dump, the blocks counted.
func TestThreadBlocksAreOneDump(t *testing.T) {
	f, err := os.Open("../../testdata/go/sigquit_crash_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := readAll(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 1 {
		t.Fatalf("%d dumps, want 1", len(dumps))
	}
	d := dumps[0]
	g0 := 0
	for _, r := range d.Routines {
		if r.ID == 0 {
			g0++
		}
	}
	if d.ThreadBlocks != 5 || g0 != 5 || len(d.Routines) != 28 || d.Total != 28 {
		t.Errorf("%d thread blocks, %d g0 of %d routines (total %d); want 5, 5 of 28", d.ThreadBlocks, g0, len(d.Routines), d.Total)
	}
	if len(d.Preamble) != 2 || d.Preamble[0] != "SIGQUIT: quit" {
		t.Errorf("preamble %q: the later blocks' signal lines are not the dump's", d.Preamble)
	}
}

// Two runtime.Stack dumps in a row stay two dumps: only a `-----` and a
// signal line continue one.
func TestRepeatedIDWithoutThreadBlocksSplits(t *testing.T) {
	f, err := os.Open("../../testdata/go/stacks2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := readAll(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 2 || dumps[0].ThreadBlocks != 0 {
		t.Errorf("%d dumps, thread blocks %d", len(dumps), dumps[0].ThreadBlocks)
	}
}
