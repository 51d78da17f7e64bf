package jvm_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// threadNamesFixture was made by testdata/gen/jvm/ThreadNames.java with
// `jcmd <pid> Thread.print -l` (see testdata/gen/jvm/README.md).
const threadNamesFixture = "../../testdata/corpus/jvm/local_jdk17.0.15-jcmd-Thread.print-l-thread-names.txt"

// threadNamesSleeping are the names ThreadNames.java gives its sleeping
// threads, in the order it starts them (ids 12 to 26). The JVM printed the
// names with line breaks over several lines.
var threadNamesSleeping = []string{
	"with space",
	`with "quote" inside`,
	"ünïcödé 日本語",
	strings.Repeat("x", 3000),
	"   java.lang.Thread.State: RUNNABLE",
	"Found one Java-level deadlock:",
	"line1\nline2",
	"three\nline\nname",
	"ends in a break\n",
	"",
	"trailing space ",
	"\tat fake.Frame.method(Fake.java:1)",
	`"fake" #99 daemon prio=5 os_prio=0 cpu=0.00ms elapsed=1.00s tid=0x0 nid=0x1 waiting on condition  [0x0]`,
	`ends in a quote"`,
	`" #7 " #8`,
}

// TestJVMTextThreadNames reads the dump of ThreadNames.java: every thread
// is kept, with its name byte for byte, its id and its state, also when
// the name holds line breaks, and writing it back in jstack form and
// reading it again keeps them.
func TestJVMTextThreadNames(t *testing.T) {
	dumps := readJVMFile(t, threadNamesFixture)
	if len(dumps) != 1 {
		t.Fatalf("%d dumps, want 1", len(dumps))
	}
	check := func(t *testing.T, d *stack.Dump) {
		t.Helper()
		// 31 Java threads (ids 1 to 31) and 7 VM threads.
		if len(d.Routines) != 38 || d.Total != 38 {
			t.Errorf("%d routines (total %d), want 38", len(d.Routines), d.Total)
		}
		if len(d.Warnings) > 0 {
			t.Errorf("warnings: %v", d.Warnings)
		}
		byID := map[uint64]*stack.Routine{}
		for _, r := range d.Routines {
			byID[uint64(r.ID)] = r
		}
		for i, name := range threadNamesSleeping {
			r := byID[uint64(12+i)]
			if r == nil {
				t.Errorf("thread #%d %q is missing", 12+i, name)
				continue
			}
			if r.Name != name || r.State != "TIMED_WAITING (sleeping)" || len(r.Stack.Frames) != 4 {
				t.Errorf("thread #%d: name %q, state %q, %d frames; want %q, TIMED_WAITING (sleeping), 4 frames",
					r.ID, r.Name, r.State, len(r.Stack.Frames), name)
			}
		}
		for id, name := range map[uint64]string{27: `dead "one"`, 28: "dead: two"} {
			if r := byID[id]; r == nil || r.Name != name || r.State != "BLOCKED (on object monitor)" {
				t.Errorf("thread #%d: %+v, want %q BLOCKED (on object monitor)", id, r, name)
			}
		}
		for id, name := range map[uint64]string{29: "juc\n\"one\"", 30: "juc:\ntwo"} {
			if r := byID[id]; r == nil || r.Name != name || r.State != "WAITING (parking)" {
				t.Errorf("thread #%d: %+v, want %q WAITING (parking)", id, r, name)
			}
		}
	}
	check(t, dumps[0])
	text := encodeJVM(t, dumps)
	again, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
	if err != nil || len(again) != 1 {
		t.Fatalf("reading the written dump: %d dumps, %v", len(again), err)
	}
	check(t, again[0])
}
