package analyze

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// TestLocksLiveJVM compiles and runs testdata/gen/jvm/LockScenarios.java,
// captures its threads with `jcmd <pid> Thread.print -l` (or `jstack -l`),
// and checks what Locks finds against the program's design and against
// the deadlock report of the JVM itself.
func TestLocksLiveJVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pid := startJava(ctx, t, "LockScenarios")

	dump := captureThreads(ctx, t, pid)
	dumps, err := formats.ReadAll(bytes.NewReader(dump), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("reading the capture: %d dumps, %v\n%s", len(dumps), err, dump)
	}
	d := dumps[0]
	if d.Source.Kind != stack.KindJVMText || !strings.Contains(d.Source.Runtime, "VM") || len(d.Warnings) > 0 {
		t.Errorf("source %+v, warnings %v", d.Source, d.Warnings)
	}
	rep := Locks(d)
	checkLockScenarios(t, rep)
	if rep.ReportedCount != 2 {
		t.Errorf("the JVM reported %d deadlocks, want 2", rep.ReportedCount)
	}
	matchReported(t, rep)
	for _, dl := range rep.Deadlocks {
		for _, lk := range dl.Locks {
			if lk.OwnerFrom != OwnerFromDump {
				t.Errorf("%s: owner from %s; -l lists every owner", lk, lk.OwnerFrom)
			}
		}
	}
	if t.Failed() {
		t.Logf("capture:\n%s", dump)
	}
}

// startJava compiles testdata/gen/jvm/CLASS.java, runs it until the test
// ends (closing its stdin, then killing it) and returns the pid it printed
// in its "ready <pid>" line. It skips the test when no JDK is installed.
func startJava(ctx context.Context, t *testing.T, class string) string {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac is not installed: the live JVM tests need a JDK")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("javac is installed but java is not: %v", err)
	}
	dir := t.TempDir()
	if out, err := exec.CommandContext(ctx, javac, "-d", dir, "../testdata/gen/jvm/"+class+".java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m", "-cp", dir, class)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- p
				break
			}
		}
		close(ready)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
	})
	select {
	case p, ok := <-ready:
		if !ok {
			t.Fatalf("%s exited before it was ready: %s", class, stderr.String())
		}
		if p != strconv.Itoa(cmd.Process.Pid) {
			t.Logf("JVM pid %s, process pid %d", p, cmd.Process.Pid)
		}
		return p
	case <-ctx.Done():
		t.Fatalf("%s not ready in time: %s", class, stderr.String())
	}
	return ""
}

// captureThreads runs jcmd Thread.print -l, or jstack -l if jcmd fails.
func captureThreads(ctx context.Context, t *testing.T, pid string) []byte {
	t.Helper()
	var errs []string
	for _, argv := range [][]string{{"jcmd", pid, "Thread.print", "-l"}, {"jstack", "-l", pid}} {
		bin, err := exec.LookPath(argv[0])
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		out, err := exec.CommandContext(ctx, bin, argv[1:]...).Output()
		if err == nil && bytes.Contains(out, []byte("Full thread dump")) {
			return out
		}
		errs = append(errs, strings.Join(argv, " ")+": "+strings.TrimSpace(string(out))+" "+errorText(err))
	}
	t.Fatalf("cannot capture the JVM's threads: %s", strings.Join(errs, "; "))
	return nil
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return err.Error() + ": " + string(ee.Stderr)
	}
	return err.Error()
}
