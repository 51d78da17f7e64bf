package remote

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// captureAttachee captures a's JVM and checks the dump has its threads.
func captureAttachee(t *testing.T, a *attachee, opts Options) *Stream {
	t.Helper()
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(a.pid), "")
	s, err := Open(context.Background(), tg, opts)
	if err != nil {
		t.Fatalf("capture jvm:%d: %v", a.pid, err)
	}
	if body := readStream(t, s); bytes.Count(body, []byte(`"attachee-waiter-`)) != 3 {
		t.Fatalf("capture jvm:%d (%s): want 3 attachee-waiter threads in:\n%.1000s", a.pid, s.URL, body)
	}
	return s
}

// TestJVMRecheck runs the check made before every attach after the first
// against a real JVM whose attach listener runs: it passes as is, fails
// naming another process when the start time recorded is not the
// process's (as when the JVM exited and its pid was given to a new
// process), and fails when the JVM's attach socket is gone, since a tool
// would then signal it. A capture after the socket was removed makes the
// JVM open it again, and no SIGQUIT of the test wrote a thread dump.
func TestJVMRecheck(t *testing.T) {
	a := startAttachee(t)
	captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	p, err := inspectJVM(a.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.recheck("jstack -l " + strconv.Itoa(a.pid)); err != nil {
		t.Fatalf("recheck of a running JVM with its listener up: %v", err)
	}

	other := *p
	other.start--
	err = other.recheck("jstack -l " + strconv.Itoa(a.pid))
	for _, w := range []string{"exited during the capture, before jstack -l", "PID " + strconv.Itoa(a.pid) + " now belongs to another process (java ", "nothing more was sent"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("recheck with another start time: err = %v, want it to say %q", err, w)
		}
	}
	t.Logf("pid reused (as shown to users): %v", err)

	for _, sock := range p.socketPaths() {
		if err := os.Remove(sock); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	err = p.recheck("jstack -l " + strconv.Itoa(a.pid))
	if err == nil || !strings.Contains(err.Error(), "its attach socket") || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("recheck without the attach socket: err = %v, want it to say the socket is gone", err)
	}
	t.Logf("socket gone (as shown to users): %v", err)
	captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	if n := a.dumps(t); n != 0 {
		t.Errorf("the JVM wrote %d thread dumps into its standard output, want none", n)
	}
}

// TestJVMCaptureStaleSocket captures a real JVM whose pid has a stale
// attach socket in /tmp, as a JVM killed with SIGKILL leaves for the next
// process with its pid: a socket file nothing listens on. The capture sees
// that connecting is refused, starts the JVM's attach listener (which
// replaces the file) and succeeds, without a thread dump in the JVM's log.
// Before, jcmd and jstack found the file, failed with "Connection
// refused", and the JVM could not be captured until the file was removed.
func TestJVMCaptureStaleSocket(t *testing.T) {
	a := startAttachee(t)
	sock := filepath.Join("/tmp", ".java_pid"+strconv.Itoa(a.pid))
	// A socket there before the first attach was left by an earlier
	// process with this pid, as the test makes one otherwise.
	if _, err := os.Stat(sock); err != nil {
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		l.SetUnlinkOnClose(false)
		l.Close()
		if err := os.Chmod(sock, 0o600); err != nil { // as HotSpot makes it
			t.Fatal(err)
		}
		stale, err := os.Stat(sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // unless the JVM replaced it
			if fi, err := os.Stat(sock); err == nil && os.SameFile(fi, stale) {
				os.Remove(sock)
			}
		})
	}
	s := captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	t.Logf("captured through %s", s.URL)
	if n := a.dumps(t); n != 0 {
		t.Errorf("the JVM wrote %d thread dumps into its standard output, want none", n)
	}
}

// TestJVMCaptureStoppedJVM captures a real JVM stopped with SIGSTOP after
// its attach listener started: jcmd connects (the kernel queues the
// connection) and gets no answer. The capture fails at its timeout saying
// so, and jstack, which would wait as long for the same socket, is not
// tried; no signal reached the JVM (no thread dump once it runs again).
func TestJVMCaptureStoppedJVM(t *testing.T) {
	tools := logTools(t)
	a := startAttachee(t)
	captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	if err := syscall.Kill(a.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			syscall.Kill(a.pid, syscall.SIGCONT)
			resumed = true
		}
	}
	t.Cleanup(resume)
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(a.pid), "")
	_, err := Open(context.Background(), tg, Options{Timeout: 2 * time.Second})
	resume()
	pid := strconv.Itoa(a.pid)
	for _, w := range []string{"jcmd " + pid + " Thread.print -l: no answer within the 2s timeout", "not tried: jstack -l " + pid} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("capture of a stopped JVM: err = %v, want it to say %q", err, w)
		}
	}
	t.Logf("stopped JVM (as shown to users): %v", err)
	for _, run := range toolRuns(t, tools) {
		if strings.HasPrefix(run, "jstack") {
			t.Errorf("jstack was run (%q) after jcmd timed out", run)
		}
	}
	// A SIGQUIT sent while it was stopped is handled now: capture again,
	// which the JVM answers only once its signal dispatcher has run.
	captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	if n := a.dumps(t); n != 0 {
		t.Errorf("the JVM wrote %d thread dumps into its standard output, want none", n)
	}
}

// TestJVMCaptureFallsBackToJstack captures a real JVM where jcmd is not
// installed: jstack is run instead (the one fallback kept, as no attach
// was made), after the JVM was checked again.
func TestJVMCaptureFallsBackToJstack(t *testing.T) {
	a := startAttachee(t)
	jstack, err := exec.LookPath("jstack")
	if err != nil {
		t.Skip("no jstack")
	}
	dir := t.TempDir()
	if err := os.Symlink(jstack, filepath.Join(dir, "jstack")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("JAVA_HOME", "")
	s := captureAttachee(t, a, Options{Timeout: 30 * time.Second})
	if want := "jstack -l " + strconv.Itoa(a.pid); s.URL != want {
		t.Errorf("captured through %q, want %q", s.URL, want)
	}
	if n := a.dumps(t); n != 0 {
		t.Errorf("the JVM wrote %d thread dumps into its standard output, want none", n)
	}
}
