package jvm_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Issue 22: JVM thread dumps as people paste them. Every input here is a
// real dump of testdata/ transformed by internal/paste as a paste
// transforms it; what it must read as is what the dump, or the part of it
// the paste kept, reads as.

func pasteForm(t *testing.T, file, transform string, seed uint64) (orig, form []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := paste.Lookup(transform)
	if !ok {
		t.Fatalf("no transformation %s", transform)
	}
	return data, tr.Apply(data, seed)
}

func readDoor(t *testing.T, b []byte) []*stack.Dump {
	t.Helper()
	ds, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return ds
}

func threadNames(d *stack.Dump) []string {
	var names []string
	for _, r := range d.Routines {
		names = append(names, r.Name)
	}
	return names
}

// Item 1: a thread header with text before its quote (a logger's prefix
// on the first line of a paste that starts at that thread, a fence glued
// to it, a backtick) is read, not dropped.
func TestPasteHeaderAfterText(t *testing.T) {
	for _, combo := range []string{"from-header+log-first-line", "from-header+fence-glued-start", "from-header+reindent+inline-code"} {
		_, form := pasteForm(t, "corpus/jvm/jthreaddump_deadlock_jdk25.txt", combo, 1)
		tr, _ := paste.Lookup(combo)
		data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus/jvm/jthreaddump_deadlock_jdk25.txt"))
		alone := readDoor(t, tr.ApplyFirst(data, 1, 1))
		got := readDoor(t, form)
		if len(alone) != 1 {
			t.Fatalf("%s: the paste's first step reads %d dumps", combo, len(alone))
		}
		if len(got) != 1 || strings.Join(threadNames(got[0]), "|") != strings.Join(threadNames(alone[0]), "|") {
			t.Errorf("%s: %d dumps, threads %s, want %q", combo, len(got), renderJVM(got), threadNames(alone[0]))
			continue
		}
		for _, w := range got[0].Warnings {
			t.Errorf("%s: a paste's frame set aside is no problem: %v", combo, w)
		}
	}
}

// Item 2: a dump cut inside its fence, or before chat text, reads as cut:
// truncated, with a warning, as the cut alone.
func TestPasteCutInsideFence(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt"))
	cut := data[:bytes.Index(data, []byte("at Samp.main"))+5] // inside a frame line
	for _, frame := range []string{"fence", "chat", "details"} {
		tr, _ := paste.Lookup(frame)
		got := readDoor(t, tr.Apply(cut, 1))
		if len(got) != 1 || !got[0].Truncated || len(got[0].Warnings) == 0 || !strings.Contains(got[0].Warnings[len(got[0].Warnings)-1].Msg, "truncated") {
			t.Errorf("%s: a cut dump reads as whole: %s", frame, renderJVM(got))
		}
	}
}

// Item 3: grep's -- separators are gaps, warned at their line: no thread
// gets the frames of another.
func TestPasteGrepSeparators(t *testing.T) {
	orig, form := pasteForm(t, "corpus/jvm/jthreaddump_rwlock_jdk25.txt", "grep", 1)
	whole := readDoor(t, orig)[0]
	byID := map[int64]*stack.Routine{}
	for _, r := range whole.Routines {
		byID[r.ID] = r
	}
	got := readDoor(t, form)[0]
	gaps := 0
	for _, w := range got.Warnings {
		if strings.Contains(w.Msg, "grep's -- group separator") {
			gaps++
		}
	}
	if gaps != bytes.Count(form, []byte("\n--\n")) {
		t.Errorf("%d gap warnings for %d separators", gaps, bytes.Count(form, []byte("\n--\n")))
	}
	for _, r := range got.Routines {
		o := byID[r.ID]
		if o == nil || len(r.Frames()) > len(o.Frames()) {
			t.Fatalf("thread %q is none of the dump's", r.Name)
		}
		for i, f := range r.Frames() {
			if of := o.Frames()[i]; f.Func != of.Func || f.File != of.File || f.Line != of.Line {
				t.Errorf("thread %q frame %d is %s, the dump's is %s", r.Name, i, f.Func, o.Frames()[i].Func)
			}
		}
	}
}

// Item 4: a paste of the JVM's deadlock report alone is a dump: the
// report, and its threads read from its stack part, with a warning.
func TestPasteDeadlockReportAlone(t *testing.T) {
	_, form := pasteForm(t, "corpus/jvm/jthreaddump_deadlock_jdk25.txt", "deadlock-only", 1)
	got := readDoor(t, form)
	if len(got) != 1 || len(got[0].Warnings) != 1 || len(got[0].Preamble) == 0 || got[0].Preamble[0] != "Found one Java-level deadlock:" {
		t.Fatalf("deadlock report alone: %s", renderJVM(got))
	}
	if names := threadNames(got[0]); strings.Join(names, ",") != "DeadlockThread-A,DeadlockThread-B" {
		t.Errorf("threads %q", names)
	}
	for _, r := range got[0].Routines {
		if r.State != "BLOCKED (on object monitor)" || len(r.Inferred) != 1 || r.Values == nil {
			t.Errorf("thread %q: state %q (inferred %v), values %v", r.Name, r.State, r.Inferred, r.Values)
		}
	}
}

// Item 6: docker logs --timestamps, journald and kubectl prefixes, and
// "> " quotes, are set aside for JVM dumps as for Go dumps.
func TestPastePrefixesAndQuotes(t *testing.T) {
	for _, tr := range []string{"docker-timestamps", "journald", "kubectl-prefix", "quote", "quote-nested", "journald+quote"} {
		orig, form := pasteForm(t, "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", tr, 1)
		dumptest.EqualDumps(t, tr, readDoor(t, orig), readDoor(t, form), dumptest.DescribeOptions{Warnings: true})
	}
}

// Item 8: frames after a stray blank line, or with a blank line after
// every line, stay the thread's.
func TestPasteBlankLines(t *testing.T) {
	orig, form := pasteForm(t, "corpus/jvm/jthreaddump_virtual_threads_jdk25.txt", "blank-doubled", 1)
	dumptest.EqualDumps(t, "blank-doubled", readDoor(t, orig), readDoor(t, form), dumptest.DescribeOptions{})
}

// Item 10: flattened text (no indentation left) keeps its states,
// frames and locks.
func TestPasteFlattened(t *testing.T) {
	for _, file := range []string{"corpus/jvm/jthreaddump_deadlock_jdk25.txt", "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", "jvm/threadinfo_jdk17.0.15.txt"} {
		orig, form := pasteForm(t, file, "flatten", 1)
		want, got := readDoor(t, orig), readDoor(t, form)
		for i := range want {
			// What flattening changes is indentation only: of the
			// deadlock report's lines, kept as they are.
			for _, d := range []*stack.Dump{want[i], got[i]} {
				for k, l := range d.Preamble {
					d.Preamble[k] = strings.TrimSpace(l)
				}
			}
			for j, r := range want[i].Routines {
				if r.Thread != nil && got[i].Routines[j].Thread != nil {
					got[i].Routines[j].Thread.Detail = r.Thread.Detail
				}
			}
		}
		dumptest.EqualDumps(t, file, want, got, dumptest.DescribeOptions{})
	}
}

// Item 11: a thread cut inside its header is no VM thread: a JDK 6 Java
// thread has no id and no state line, and cut before its "[0x…]" it has
// nothing a VM thread does not have.
func TestPasteCutThreadIsNoVMThread(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus/jvm/tda_jdk6_server.log"))
	at := bytes.Index(data, []byte(`"ToeThread #71: http://shopping.zappos.com/robots.txt" daemon prio=10`))
	cut := data[:at+bytes.Index(data[at:], []byte(" waiting for monitor"))]
	got, err := readText(bytes.NewReader(cut), jvm.ReadOptions{})
	if err != nil || len(got) != 1 {
		t.Fatal(err)
	}
	last := got[0].Routines[len(got[0].Routines)-1]
	if !strings.HasPrefix(last.Name, "ToeThread #71") || last.State == stack.StateVMThread || last.Thread.Native || !got[0].Truncated {
		t.Errorf("cut thread %q: state %q, native %v, truncated %v", last.Name, last.State, last.Thread.Native, got[0].Truncated)
	}
}
