package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// TestCaptureSummarySizeWritten captures a real target of 3000
// goroutines into a gzipped file: the summary's size is the file's (what
// was written, compressed), beside what was received; it used to show the
// uncompressed size alone beside a file twenty times smaller.
func TestCaptureSummarySizeWritten(t *testing.T) {
	target := startPauseTarget(t, "-goroutines", "3000")
	out := filepath.Join(t.TempDir(), "dump.json.gz")
	stdout, stderr, err := runCLI(t, "capture", target.addr, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(stdout, "\n")
	want := target.addr + " → " + out + ": " + humanBytes(fi.Size()) + " written in "
	if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, " received)") || strings.Contains(first, "("+humanBytes(fi.Size())+" received)") {
		t.Errorf("summary %q, want it to start %q and say the larger size received", first, want)
	}
}

// TestDiffRefusesGoAgainstJVM: a Go dump against a JVM dump has no group
// in common; diff says so and exits 1 instead of printing every group as
// new and gone.
func TestDiffRefusesGoAgainstJVM(t *testing.T) {
	jvm := filepath.Join("..", "..", "testdata", "corpus", "jvm", "local_jdk17.0.15-jstack-l-deadlocks.txt")
	for _, args := range [][]string{{demoDump, jvm}, {jvm, demoDump}} {
		out, _, err := runCLI(t, append([]string{"diff"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "a Go process's goroutines and a JVM's threads have no stack in common") || out != "" {
			t.Errorf("diff %v: %v, output %q; want a refusal", args, err, out)
		}
	}
	if _, _, err := runCLI(t, "diff", jvm, jvm); err != nil {
		t.Errorf("diff of two JVM dumps: %v", err)
	}
}

// TestCaptureJVMJSONFallbackSaid captures a live JVM with --jvm-json: a
// JDK before 21 has no Thread.dump_to_file, and capture says that it fell
// back to Thread.print (it used to fall back without a word).
func TestCaptureJVMJSONFallbackSaid(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := livechild.StartJava(ctx, t, "SpinAndPark")
	out := filepath.Join(t.TempDir(), "threads.txt")
	_, stderr, err := runCLI(t, "capture", "-q", "--jvm-json", "jvm:"+p.PID, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), `"threadDump"`) || stderr == "" && strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		t.Skip("this JDK has Thread.dump_to_file: nothing to fall back from")
	}
	want := "stackdump: jvm:" + p.PID + ": --jvm-json: this JVM has no Thread.dump_to_file (JDK 21 and newer have it; jcmd: Unknown diagnostic command); wrote `jcmd " + p.PID + " Thread.print -l` instead\n"
	if stderr != want {
		t.Errorf("standard error %q, want %q", stderr, want)
	}
}

// TestCaptureLeakSummary captures Go 1.27 targets in leak mode: one with
// 6 goroutines the runtime proves leaked (and 4 blocked on a reachable
// channel, which it cannot prove), one with none. The summary counts the
// proven ones, or says "0 proven leaked" and what that does not mean.
func TestCaptureLeakSummary(t *testing.T) {
	bin := buildLeakTarget(t, "go1.27.3")
	for _, tc := range []struct {
		leaked string
		want   []string
	}{
		{"6", []string{"  6 proven leaked in 1 group (marked (leaked))", "         6  leaked in main.leakSender (main.go:"}},
		{"0", []string{"  0 proven leaked: the leak-detection GC cycle found no goroutine blocked", "is never proven, see stackdump analyze's likely leaks"}},
	} {
		addr := startLeakTarget(t, bin, "-leaked", tc.leaked, "-parked", "4")
		stdout, stderr, err := runCLI(t, "capture", "--mode", "leak", addr, "-o", filepath.Join(t.TempDir(), "leaks.txt"))
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("-leaked %s: summary lacks %q:\n%s", tc.leaked, want, stdout)
			}
		}
	}
}
