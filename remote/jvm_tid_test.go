package remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJVMCaptureRefusesThreadID captures jvm:TID with the id of one of a
// real JVM's threads, as `top -H` shows them: /proc/TID exists for every
// thread, but a thread is not a process to attach to. Through the remote
// API and through the CLI binary the capture is refused before any signal,
// naming the process the thread belongs to and saying to capture its PID;
// the JVM wrote no "Full thread dump" into its standard output (before the
// fix jcmd and jstack each signalled it six times, 12 dumps in 21 s). A
// capture of the PID it names then works, again without a dump.
func TestJVMCaptureRefusesThreadID(t *testing.T) {
	a := startAttachee(t)
	tid := otherThread(t, a.pid)
	pid := strconv.Itoa(a.pid)
	wants := []string{
		"jvm:" + tid + " is a thread of process " + pid,
		"(java -Xmx64m", "Attachee)",
		"capture jvm:" + pid + " instead",
		"no signal was sent",
	}
	tg, err := ParseTarget("jvm:"+tid, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), tg, Options{Timeout: 30 * time.Second})
	if !errors.Is(err, ErrNotJVM) {
		t.Errorf("capture jvm:%s (a thread of %s): err = %v, want %v", tid, pid, err, ErrNotJVM)
	}
	for _, w := range wants {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("capture jvm:%s: err = %v, want it to say %q", tid, err, w)
		}
	}
	t.Logf("remote.Open (as shown to users): %v", err)

	bin := buildCLI(t)
	cmd := exec.Command(bin, "capture", "-q", "jvm:"+tid, "-o", filepath.Join(t.TempDir(), "threads.txt"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("stackdump capture jvm:%s: %v, want exit status 1", tid, err)
	}
	for _, w := range wants {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stackdump capture jvm:%s: stderr %q, want it to say %q", tid, stderr.String(), w)
		}
	}
	t.Logf("stackdump capture jvm:%s (stderr): %s", tid, strings.TrimSpace(stderr.String()))

	tg, _ = ParseTarget("jvm:"+pid, "")
	s, err := Open(context.Background(), tg, Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("capture jvm:%s, the PID the refusal named: %v", pid, err)
	}
	if body := readStream(t, s); bytes.Count(body, []byte(`"attachee-waiter-`)) != 3 {
		t.Errorf("capture jvm:%s: want 3 attachee-waiter threads in:\n%.1000s", pid, body)
	}
	if n := a.dumps(t); n != 0 {
		t.Errorf("the JVM wrote %d thread dumps into its standard output, want none; its output begins:\n%.600s", n, a.output(t))
	}
}

// otherThread returns the id of a thread of pid that is not its
// thread-group leader (whose id is pid itself).
func otherThread(t *testing.T, pid int) string {
	t.Helper()
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.Name() != strconv.Itoa(pid) {
			return task.Name()
		}
	}
	t.Fatalf("JVM %d has no thread but its leader", pid)
	return ""
}

// buildCLI builds cmd/stackdump (a module of its own, requiring this one
// through a replace) into a temporary directory and returns the binary's
// path.
func buildCLI(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: the CLI is not built")
	}
	bin := filepath.Join(t.TempDir(), "stackdump")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "cmd", "stackdump") // the CLI's own module
	if out, err := build.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("requires go >=")) {
			t.Skipf("the CLI needs a newer Go than this test runs with (%s):\n%s", runtime.Version(), out)
		}
		t.Fatalf("go build ./cmd/stackdump: %v\n%s", err, out)
	}
	return bin
}
