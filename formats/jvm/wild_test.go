package jvm_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Issue 38: the JVM forms found in the wild (testdata/wild, README.md there
// says where each file comes from), read or refused naming the form.

func wildFile(t *testing.T, name string) []byte {
	t.Helper()
	return readTestdata(t, filepath.Join("wild", name))
}

// reSAThread counts the agent's thread headers independently of the
// reader: JDK 8's "Thread N: (state = X)", JDK 9+'s HotSpot headers.
var reSAThread = regexp.MustCompile(`(?m)^(?:Thread \d+: \(state = |"[^"\n]*" #\d+ )`)

// JDK 8's jstack -F: every thread read, with the OS thread id and the VM
// state its header gives and the agent's frames (function and line; the
// agent prints no file), the pid and VM version of its banner, no warning.
func TestWildJstackF(t *testing.T) {
	data := wildFile(t, "intellij_jstack-F_jdk8.txt")
	ds := readDoor(t, data)
	if len(ds) != 1 {
		t.Fatalf("%d dumps, want 1:\n%s", len(ds), renderJVM(ds))
	}
	d := ds[0]
	if d.Source.Target != "7370" || d.Source.Runtime != "25.161-b12" {
		t.Errorf("source %+v, want target 7370 and runtime 25.161-b12", d.Source)
	}
	want := []struct {
		os     int64
		state  string
		frames int
	}{{8393, "BLOCKED", 9}, {7399, "IN_NATIVE", 5}, {7381, "BLOCKED", 0}}
	if n := len(reSAThread.FindAll(data, -1)); len(d.Routines) != n || n != len(want) {
		t.Fatalf("%d threads, the file has %d headers:\n%s", len(d.Routines), n, renderJVM(ds))
	}
	for i, w := range want {
		r := d.Routines[i]
		if r.Thread.OSID != w.os || r.State != w.state || len(r.Stack.Frames) != w.frames || r.Thread.Native {
			t.Errorf("thread %d: os %d, state %q, %d frames, native %v; want %d, %q, %d, a Java thread", i, r.Thread.OSID, r.State, len(r.Stack.Frames), r.Thread.Native, w.os, w.state, w.frames)
		}
	}
	f := d.Routines[0].Stack.Frames
	if f[0].Func != "sun.misc.Unsafe.park" || f[0].Line != 0 || f[1].Func != "java.util.concurrent.locks.LockSupport.parkNanos" || f[1].Line != 215 || f[1].File != "" {
		t.Errorf("frames %+v %+v, want Unsafe.park and LockSupport.parkNanos at line 215, no file", *f[0], *f[1])
	}
	for _, w := range d.Warnings {
		t.Errorf("warning: %v", w)
	}
}

// JDK 17's jhsdb jstack (the agent's dump after JDK 8): its deadlock report
// before the threads, every thread with its frames and lock lines, and
// with --locks the ownable synchronizers; the threads of both captures of
// one process are the same.
func TestWildJhsdbJstack(t *testing.T) {
	var models []string
	for _, name := range []string{"local_jdk17.0.15-jhsdb-jstack.txt", "local_jdk17.0.15-jhsdb-jstack-locks.txt"} {
		data := wildFile(t, name)
		ds := readDoor(t, data)
		if len(ds) != 1 {
			t.Fatalf("%s: %d dumps, want 1:\n%s", name, len(ds), renderJVM(ds))
		}
		d := ds[0]
		if n := len(reSAThread.FindAll(data, -1)); len(d.Routines) != n || n == 0 {
			t.Errorf("%s: %d threads, the file has %d headers", name, len(d.Routines), n)
		}
		if !strings.HasPrefix(d.Source.Runtime, "17.0.15") || d.Source.Target == "" {
			t.Errorf("%s: source %+v, want the agent's VM version and pid", name, d.Source)
		}
		if p := strings.Join(d.Preamble, "\n"); !strings.Contains(p, `waiting to lock Monitor@`) || !strings.Contains(p, "Found a total of 2 deadlocks.") {
			t.Errorf("%s: preamble %q, want the agent's deadlock report", name, p)
		}
		for _, w := range d.Warnings {
			t.Errorf("%s: warning: %v", name, w)
		}
		r := findRoutine(t, d, "lock-waiter-2")
		if r.State != "WAITING (parking)" || len(r.Stack.Frames) < 3 || r.Stack.Frames[0].Func != "jdk.internal.misc.Unsafe.park" {
			t.Errorf("%s: lock-waiter-2 %q with %d frames, want WAITING (parking) in Unsafe.park", name, r.State, len(r.Stack.Frames))
		} else if ls := r.Values.Frames[0].Locks; len(ls) != 1 || ls[0].Kind != stack.LockParked {
			t.Errorf("%s: lock-waiter-2's top frame locks %+v, want the lock it parks on", name, ls)
		}
		if strings.Contains(name, "locks") {
			if s := findRoutine(t, d, "juc-1").Thread.Synchronizers; len(s) != 1 {
				t.Errorf("%s: juc-1 owns %+v, want its ReentrantLock", name, s)
			}
		}
		for _, r := range d.Routines {
			r.Thread.Synchronizers = nil
		}
		models = append(models, renderJVM(ds))
	}
	models[0], models[1] = reHeaderLine.ReplaceAllString(models[0], ""), reHeaderLine.ReplaceAllString(models[1], "")
	if models[0] != models[1] {
		t.Errorf("jhsdb jstack and jhsdb jstack --locks of one process read differently:\n%s", dumptest.FirstDiff(models[0], models[1]))
	}
}

// What the agent's dump reads survives a write in jstack form and a second
// read: the line of a frame without a file included.
func TestWildSARoundTrip(t *testing.T) {
	for _, name := range []string{"intellij_jstack-F_jdk8.txt", "local_jdk17.0.15-jhsdb-jstack-locks.txt"} {
		first := readDoor(t, wildFile(t, name))
		text := encodeJVM(t, first)
		second := readDoor(t, text)
		want := reHeaderLine.ReplaceAllString(renderJVM(first), "")
		got := reHeaderLine.ReplaceAllString(renderJVM(second), "")
		if got != want {
			t.Errorf("%s: round trip changed the model:\n%s", name, dumptest.FirstDiff(want, got))
		}
	}
}

// Forms that are not thread dumps stackdump reads are refused naming the
// form, never read as a few threads with warnings.
func TestWildRefusedForms(t *testing.T) {
	for name, want := range map[string]string{
		"local_jdk17.0.15-hs_err_pid.log":          "HotSpot fatal error log (hs_err_pid): its Java Threads list has no stacks",
		"sentry_android13_anr_thread_dump.txt":     "Android ART thread dump (an ANR trace)",
		"openj9docs_javacore_threads_deadlock.txt": "OpenJ9 javacore",
	} {
		ds, err := formats.ReadAll(bytes.NewReader(wildFile(t, name)), formats.ReadOptions{})
		if !errors.Is(err, stack.ErrNotDump) || err == nil || !strings.Contains(err.Error(), want) || len(ds) != 0 {
			t.Errorf("%s: %d dumps, error %v; want it refused naming the form (%q)", name, len(ds), err, want)
		}
	}
}

// The same forms glued between real thread dumps (a file of several
// captures, a concatenation of many dumps): the dumps are read as they
// read alone, and a warning names the form at its first line; none of its
// threads is read, none is lost without a word.
func TestWildRefusedFormsGlued(t *testing.T) {
	jstack := readTestdata(t, "corpus/jvm/local_jdk17.0.15-jstack-plain.txt")
	alone := readDoor(t, jstack)
	for name, want := range map[string]string{
		"local_jdk17.0.15-hs_err_pid.log":          "hs_err_pid",
		"sentry_android13_anr_thread_dump.txt":     "ANR trace",
		"openj9docs_javacore_threads_deadlock.txt": "OpenJ9 javacore",
	} {
		other := wildFile(t, name)
		glued := paste.GlueWith("jvm", jstack).Apply(paste.GlueWith(name, other).Apply(jstack, 1), 1)
		ds := readDoor(t, glued)
		if len(ds) != 2 {
			t.Errorf("%s between two dumps: %d dumps, want 2:\n%s", name, len(ds), renderJVM(ds))
			continue
		}
		from := bytes.Count(glued[:bytes.Index(glued, other)], []byte("\n")) + 1
		to := from + bytes.Count(other, []byte("\n"))
		named := 0
		for i, d := range ds {
			if len(d.Routines) != len(alone[0].Routines) {
				t.Errorf("%s: dump %d has %d threads, the dump alone %d", name, i, len(d.Routines), len(alone[0].Routines))
			}
			for _, w := range d.Warnings {
				if strings.Contains(w.Msg, want) && w.Line >= from && w.Line <= min(from+2, to) || strings.Contains(w.Msg, want) && named > 0 && w.Line <= to {
					named++
				} else {
					t.Errorf("%s (lines %d to %d): unexpected warning %v", name, from, to, w)
				}
			}
		}
		if named == 0 {
			t.Errorf("%s: no warning names the form at its first lines (%d)", name, from)
		}
	}
}

func readTestdata(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Thread names made bold in Markdown (`**"main"** #1 prio=5 …`) are
// headers: the dump reads as it did.
func TestWildBoldNames(t *testing.T) {
	for _, file := range []string{"corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt", "corpus/jvm/tda_jdk8.log"} {
		orig, form := pasteForm(t, file, "bold-names", 1)
		if bytes.Equal(orig, form) || !bytes.Contains(form, []byte(`**"`)) {
			t.Fatalf("%s: bold-names changed nothing", file)
		}
		want, got := readDoor(t, orig), readDoor(t, form)
		if w, g := renderJVM(want), renderJVM(got); w != g {
			t.Errorf("%s with bold names reads otherwise:\n%s", file, dumptest.FirstDiff(w, g))
		}
	}
}

// Issue 38 item 5: a JVM dump whose lines stop inside a thread's stack,
// the log going on after it (internal/paste's cut-log, then journald, of
// real dumps), is truncated with a warning.
func TestWildLogCutMidThreadTruncated(t *testing.T) {
	tr, _ := paste.Lookup("cut-log+journald")
	for _, file := range []string{"corpus/jvm/local_jdk17.0.15-jstack-plain.txt", "corpus/jvm/jthreaddump_deadlock_jdk25.txt", "corpus/jvm/tda_jdk8.log"} {
		for seed := uint64(1); seed <= 4; seed++ {
			orig, form := pasteForm(t, file, tr.Name, seed)
			if !tr.Applies(orig) {
				t.Fatalf("%s: cut-log does not apply", file)
			}
			ds := readDoor(t, form)
			last := ds[len(ds)-1]
			warned := false
			for _, w := range last.Warnings {
				warned = warned || strings.Contains(w.Msg, "dump truncated")
			}
			if !last.Truncated || !warned {
				t.Errorf("%s seed %d: truncated %v, warned %v; want a dump cut inside a thread read as cut", file, seed, last.Truncated, warned)
			}
		}
	}
}
