package jvm_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

// jvmCorpusText lists the JVM text dumps of the corpus and of testdata/jvm.
func jvmCorpusText(t testing.TB) []string {
	t.Helper()
	corpus, own := filepath.Join("..", "..", "testdata", "corpus", "jvm"), filepath.Join("..", "..", "testdata", "jvm")
	return dumptest.SeedFiles(t, filepath.Join(corpus, "*.txt"), filepath.Join(corpus, "*.log"), filepath.Join(own, "*.txt"))
}

func readJVMFile(t testing.TB, path string) []*stack.Dump {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

var (
	// Thread headers counted independently of the reader: HotSpot,
	// VisualVM and ThreadInfo headers, Thread.dump_to_file headers, and the
	// virtual threads carried by a carrier. reCountNameEnd counts the last
	// line of a HotSpot header whose name holds line breaks.
	reCountHeader  = regexp.MustCompile(`(?m)^"[^\n]*"\s+(?:#\d+|daemon|prio=|os_prio=|tid=|- Thread t@|Id=\d)`)
	reCountNameEnd = regexp.MustCompile(`(?m)^(?:[^"\n][^\n]*)?" #\d+ (?:daemon )?prio=`)
	reCountToFile  = regexp.MustCompile(`(?m)^#\d+ "`)
	reCountCarried = regexp.MustCompile(`(?m)^\s+Carrying virtual thread #\d+`)
)

func TestJVMTextCorpusThreadCounts(t *testing.T) {
	for _, path := range jvmCorpusText(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if k := sniffedKind(t, data); k != stack.KindJVMText {
				t.Errorf("sniffed as %s", k)
			}
			want := len(reCountHeader.FindAll(data, -1)) + len(reCountNameEnd.FindAll(data, -1)) +
				len(reCountToFile.FindAll(data, -1)) + len(reCountCarried.FindAll(data, -1))
			dumps := readJVMFile(t, path)
			got := 0
			for _, d := range dumps {
				got += len(d.Routines)
				if d.Total != int64(len(d.Routines)) {
					t.Errorf("Total %d, %d routines", d.Total, len(d.Routines))
				}
				for _, w := range d.Warnings {
					t.Errorf("warning: %v", w)
				}
			}
			if got != want || want == 0 {
				t.Errorf("read %d threads, the file has %d headers", got, want)
			}
		})
	}
}

func findRoutine(t *testing.T, d *stack.Dump, name string) *stack.Routine {
	t.Helper()
	for _, r := range d.Routines {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no thread %q", name)
	return nil
}

// TestJVMTextFields checks the mapping of header, state, frame and lock
// lines to the model on real jcmd and jstack output.
func TestJVMTextFields(t *testing.T) {
	d := readJVMFile(t, "../../testdata/corpus/jvm/local_jdk17.0.15-jcmd-Thread.print-l-e.txt")[0]
	if d.Source.Target != "6835" || d.Source.Runtime != "OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing)" ||
		d.Source.CapturedAt.Format("2006-01-02 15:04:05") != "2026-11-30 10:15:40" {
		t.Errorf("source %+v", d.Source)
	}
	main := findRoutine(t, d, "main")
	th := main.Thread
	if main.ID != 1 || th.OSID != 0x1ab5 || th.Priority != 5 || th.OSPrio != 0 || th.Daemon ||
		th.CPU.String() != "58.52ms" || th.Elapsed.String() != "5.1s" || main.State != "TIMED_WAITING (sleeping)" ||
		th.Detail != "allocated=492K defined_classes=53 tid=0x00007f6d64017ea0 nid=0x1ab5 waiting on condition  [0x00007f6d6851e000]" {
		t.Errorf("main: %+v %+v", main, th)
	}
	if f := main.Frames()[0]; f.Func != "java.lang.Thread.sleep" || f.Module != "java.base@17.0.15" || !f.Native || f.File != "" {
		t.Errorf("main frame 0: %+v", f)
	}
	if f := main.Frames()[1]; f.Func != "Samp.main" || f.File != "Samp.java" || f.Line != 30 || f.Module != "" {
		t.Errorf("main frame 1: %+v", f)
	}
	juc := findRoutine(t, d, "dl-juc-1")
	if l := juc.Values.Frames[0].Locks; len(l) != 1 || l[0] != (stack.Lock{Kind: stack.LockParked, Addr: "0x000000069e01adc8", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}) {
		t.Errorf("dl-juc-1 top locks %+v", l)
	}
	if s := juc.Thread.Synchronizers; len(s) != 1 || s[0] != (stack.Lock{Kind: stack.LockOwnable, Addr: "0x000000069e01ad98", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}) {
		t.Errorf("dl-juc-1 synchronizers %+v", s)
	}
	if lambda := juc.Frames()[7]; lambda.Func != "Samp$$Lambda$3/0x00007f6ce8001000.run" || lambda.File != "" || lambda.Native {
		t.Errorf("lambda frame %+v", lambda)
	}
	vm := findRoutine(t, d, "VM Thread")
	if !vm.Thread.Native || vm.ID != 0 || vm.Thread.OSID != 0x1abb || vm.State != stack.StateVMThread || len(vm.Frames()) != 0 {
		t.Errorf("VM Thread %+v %+v", vm, vm.Thread)
	}
	// Identical pool stacks share one interned stack.
	if findRoutine(t, d, "pool-1-thread-1").Stack != findRoutine(t, d, "pool-1-thread-4").Stack {
		t.Error("identical stacks not shared")
	}
}

// TestJVMTextVirtualThreads checks the JDK 21+ carrier shapes: a carrier
// with "Carrying virtual thread #N" and, from JDK 24, the mounted virtual
// thread's own frames, read as a routine of its own.
func TestJVMTextVirtualThreads(t *testing.T) {
	d := readJVMFile(t, "../../testdata/corpus/jvm/jthreaddump_virtual_threads_jdk25.txt")[0]
	carrier := findRoutine(t, d, "ForkJoinPool-1-worker-1")
	var vt *stack.Routine
	for i, r := range d.Routines {
		if r == carrier {
			vt = d.Routines[i+1]
		}
	}
	if carrier.ID != 65 || carrier.Thread.OSID != 62471 || carrier.State != stack.StateCarrier || carrier.Thread.Virtual || len(carrier.Frames()) != 10 {
		t.Errorf("carrier %+v %+v", carrier, carrier.Thread)
	}
	if vt.ID != 206 || !vt.Thread.Virtual || vt.Thread.Carrier != 65 || vt.Name != "" || vt.State != stack.StateMounted || len(vt.Frames()) != 7 ||
		vt.Frames()[0].Func != "me.bechberger.jthreaddump.test.ThreadDumpGenerator.lambda$manyVirtualThreadsScenario$1" {
		t.Errorf("mounted virtual thread %+v %+v", vt, vt.Thread)
	}
	if v := findRoutine(t, readJVMFile(t, "../../testdata/corpus/jvm/intellij_jcmd_dump_to_file_plain_jdk21.txt")[0], ""); !v.Thread.Virtual || v.ID != 23 {
		t.Errorf("dump_to_file virtual thread %+v", v)
	}
}

// TestJVMTextTwoDumps reads the HP-UX file that holds two dumps (EUC-KR
// dates, CRLF) as two dumps through Next.
func TestJVMTextTwoDumps(t *testing.T) {
	dumps := readJVMFile(t, "../../testdata/corpus/jvm/tda_hpux_jdk15_large.log")
	if len(dumps) != 2 {
		t.Fatalf("%d dumps", len(dumps))
	}
	for i, at := range []string{"2008-03-15 14:48:56", "2008-03-15 14:49:00"} {
		d := dumps[i]
		if got := d.Source.CapturedAt.Format("2006-01-02 15:04:05"); got != at || len(d.Routines) != 574 ||
			d.Source.Runtime != "Java HotSpot(TM) 64-Bit Server VM 1.5.0.11 jinteg:11.07.07-18:21 IA64W mixed mode" {
			t.Errorf("dump %d: %s, %d threads, %q", i+1, got, len(d.Routines), d.Source.Runtime)
		}
	}
	if r := dumps[1].Routines[0]; r.Name != "ACJH_SOPSI_BAN_01-w13 [container1-361]" || r.Thread.OSID != 1194 || r.Line != 4938 {
		t.Errorf("first thread of dump 2: %q osid %d line %d", r.Name, r.Thread.OSID, r.Line)
	}
}

// TestJVMTextWarnings checks that malformed lines are reported with their
// line numbers and offsets while the threads around them are kept.
func TestJVMTextWarnings(t *testing.T) {
	in := "Full thread dump Test VM:\n" + // 1
		"\n" + // 2
		"\"a\" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable  [0x3]\n" + // 3
		"   java.lang.Thread.State: RUNNABLE\n" + // 4
		"\t- locked <0x10> (a java.lang.Object)\n" + // 5: before any frame
		"\tat demo.A.run(A.java:1)\n" + // 6
		"\tat broken frame\n" + // 7
		"log line in the middle\n" + // 8
		"\tat demo.A.main(A.java:2)\n" + // 9
		"\n" + // 10
		"\"b\" #2 prio=5 os_prio=0 tid=0x4 nid=0x5 runnable  [0x6]\n" + // 11
		"   java.lang.Thread.State: RUNNABLE\n" + // 12
		"\tat demo.B.run(B.java:" + string(bytes.Repeat([]byte("9"), 300)) + ")\n" + // 13: too long
		"\tat demo.B.main(B.java:3)\n" // 14
	dumps, err := formats.ReadAll(bytes.NewReader([]byte(in)), formats.ReadOptions{MaxLineBytes: 200})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	d := dumps[0]
	var lines []int
	for _, w := range d.Warnings {
		lines = append(lines, w.Line)
		if w.Offset != int64(bytes.Index([]byte(in), []byte(lineOf(in, w.Line)))) {
			t.Errorf("warning %v: offset %d", w, w.Offset)
		}
	}
	if want := []int{5, 7, 8, 13}; !equalInts(lines, want) {
		t.Errorf("warnings on lines %v, want %v: %v", lines, want, d.Warnings)
	}
	if len(d.Routines) != 2 || len(d.Routines[0].Frames()) != 2 || len(d.Routines[1].Frames()) != 1 {
		t.Fatalf("threads not kept: %s", renderJVM(dumps))
	}
}

func lineOf(s string, n int) string {
	for i, l := range bytes.Split([]byte(s), []byte("\n")) {
		if i+1 == n {
			return string(l[:min(len(l), 40)])
		}
	}
	return ""
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJVMTextTruncated marks a dump cut in the middle of a thread.
func TestJVMTextTruncated(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt")
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:bytes.Index(data, []byte("at Samp.main"))+5]
	dumps, err := formats.ReadAll(bytes.NewReader(cut), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 || !dumps[0].Truncated || len(dumps[0].Routines) != 1 {
		t.Fatalf("%v: %s", err, renderJVM(dumps))
	}
}

// TestJVMTextStreaming copies dumps routine by routine through the
// encoder, as the convert command does, and expects the same text as
// writing the dumps read whole: the deadlock report, read after the
// threads, still reaches the output.
func TestJVMTextStreaming(t *testing.T) {
	for _, name := range []string{"local_jdk17.0.15-jstack-l-deadlocks.txt", "tda_hpux_jdk15_large.log", "jthreaddump_virtual_threads_jdk25.txt"} {
		path := filepath.Join("..", "..", "testdata", "corpus", "jvm", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer
		n, err := formats.Copy(jvm.NewEncoder(&streamed), formats.NewReader(bytes.NewReader(data), formats.ReadOptions{}), nil)
		if err != nil || n == 0 {
			t.Fatalf("%s: %d dumps, %v", name, n, err)
		}
		if whole := encodeJVM(t, readJVMFile(t, path)); !bytes.Equal(streamed.Bytes(), whole) {
			t.Errorf("%s: streamed output differs:\n%s", name, dumptest.FirstDiff(string(whole), streamed.String()))
		}
		if name == "local_jdk17.0.15-jstack-l-deadlocks.txt" && !bytes.Contains(streamed.Bytes(), []byte("Found 2 deadlocks.")) {
			t.Errorf("deadlock report lost")
		}
	}
}

// readText reads every dump of r with the JVM text reader, as the door
// does when the kind is forced to stack.KindJVMText.
func readText(r io.Reader, opts jvm.ReadOptions) ([]*stack.Dump, error) {
	return stack.ReadAll(jvm.NewReader(r, opts))
}

// sniffedKind is the kind the door sniffs data as (from its first 64 KiB,
// as for any input held in memory).
func sniffedKind(t *testing.T, data []byte) stack.Kind {
	t.Helper()
	rd := formats.NewReaderBytes(data, formats.ReadOptions{})
	if _, err := rd.Next(); err != nil {
		t.Errorf("door reading: %v", err)
	}
	return rd.Kind()
}
