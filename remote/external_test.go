package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGopsAgent captures gops:// of a real gops agent: a child program
// (testdata/gen/gopsagent, a module of its own so that the library does
// not require gops) with 5 goroutines parked in a known function.
func TestGopsAgent(t *testing.T) {
	_, addr := startGopsAgent(context.Background(), t)
	tg, err := ParseTarget("gops://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	if n := bytes.Count(body, []byte("main.parkedForGops(")); n != 5 {
		t.Errorf("gops dump has %d goroutines in main.parkedForGops, want 5:\n%.2000s", n, body)
	}
}

// startJVM compiles and starts testdata/Parked.java with the extra java
// options jvmArgs and returns its pid.
func startJVM(t *testing.T, jvmArgs ...string) int {
	t.Helper()
	for _, tool := range []string{"javac", "java", "jcmd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: JVM capture not tested", tool)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "-d", dir, filepath.Join("testdata", "Parked.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	args := append([]string{"-Xmx64m", "-XX:+UseSerialGC"}, jvmArgs...)
	cmd := exec.Command("java", append(args, "-cp", dir, "Parked")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- strings.TrimSpace(line) == "ready"
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("JVM did not start")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("JVM did not print ready within 30s")
	}
	return cmd.Process.Pid
}

// TestJVMCapture captures a real JVM, found by its hsperfdata file, and one
// run with -XX:-UsePerfData, found by libjvm in its memory map.
func TestJVMCapture(t *testing.T) {
	for _, jvmArgs := range [][]string{nil, {"-XX:-UsePerfData"}} {
		pid := startJVM(t, jvmArgs...)
		tg, err := ParseTarget("jvm:"+strconv.Itoa(pid), "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), tg, Options{})
		if err != nil {
			t.Fatalf("java %v: %v", jvmArgs, err)
		}
		body := readStream(t, s)
		if !bytes.Contains(body, []byte("Full thread dump")) {
			t.Fatalf("java %v: no thread dump from %s:\n%.1000s", jvmArgs, s.URL, body)
		}
		if n := bytes.Count(body, []byte(`"parked-waiter-`)); n != 3 {
			t.Errorf("java %v: dump has %d parked-waiter threads, want 3", jvmArgs, n)
		}
	}
}

// TestJVMCaptureRefusesGoProcess captures a Go process (this test binary,
// re-run as a child that blocks) as jvm:PID: the capture is refused before
// jcmd or jstack run, and the child, which SIGQUIT would kill, lives on.
func TestJVMCaptureRefusesGoProcess(t *testing.T) {
	pid, exited := startBlockedChild(t)
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(pid), "")
	_, err := Open(context.Background(), tg, Options{Timeout: 20 * time.Second})
	want := "PID " + strconv.Itoa(pid) + " is not a Java virtual machine"
	if err == nil || !errors.Is(err, ErrNotJVM) || !strings.Contains(err.Error(), want) {
		t.Fatalf("capturing a Go process as a JVM: err = %v, want %q", err, want)
	}
	select {
	case err := <-exited:
		t.Fatalf("the Go process died after the refused capture: %v", err)
	case <-time.After(500 * time.Millisecond): // a SIGQUIT kills at once
	}
}

// startBlockedChild re-runs this test binary as a child that blocks until
// the test ends, and returns its pid and a channel that receives its exit.
func startBlockedChild(t *testing.T) (int, <-chan error) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), blockChildEnv+"=1")
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() { child.Process.Kill(); <-exited })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	go func() { exited <- child.Wait() }()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("child did not start: %q", line)
	}
	return child.Process.Pid, exited
}

func TestJVMNoSuchProcess(t *testing.T) {
	tg, _ := ParseTarget("jvm:999999999", "")
	_, err := Open(context.Background(), tg, Options{Timeout: 20 * time.Second})
	if !errors.Is(err, ErrNotJVM) || !strings.Contains(err.Error(), "no such process") {
		t.Fatalf("capturing a missing process: err = %v, want %v naming no such process", err, ErrNotJVM)
	}
	t.Logf("error (as shown to users): %v", err)
}

// TestJVMCaptureJSON asks for Thread.dump_to_file -format=json: a JDK 21+
// JVM answers with its JSON dump, an older one (Java 17 here) does not know
// the command, and the capture falls back to Thread.print.
func TestJVMCaptureJSON(t *testing.T) {
	pid := startJVM(t)
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(pid), "")
	s, err := Open(context.Background(), tg, Options{JVMJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	switch {
	case bytes.Contains(body, []byte(`"threadDump"`)):
		if n := bytes.Count(body, []byte(`"parked-waiter-`)); n != 3 {
			t.Errorf("JSON dump names %d parked-waiter threads, want 3", n)
		}
	case bytes.Contains(body, []byte("Full thread dump")):
		t.Logf("this JVM has no Thread.dump_to_file; fell back to %s", s.URL)
		if !strings.Contains(s.URL, "Thread.print") {
			t.Errorf("fell back to %q, want Thread.print", s.URL)
		}
		if want := "Options.JVMJSON: this JVM has no Thread.dump_to_file (JDK 21 and newer have it; jcmd: Unknown diagnostic command)"; s.Fallback != want {
			t.Errorf("Fallback %q, want %q", s.Fallback, want)
		}
	default:
		t.Fatalf("neither a JSON nor a text thread dump from %s:\n%.500s", s.URL, body)
	}
}

// TestLeakModeRefusesJVMAndGops asks a real JVM and a gops address for
// --mode leak: their dumps mark nothing leaked, so writing one as a leak
// capture would read as "no leaks". Both are refused with ErrNoLeakProfile
// (watch --leak-every's fallback) before the JVM is attached to or the
// address is dialed.
func TestLeakModeRefusesJVMAndGops(t *testing.T) {
	pid := startJVM(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	// An attach makes the JVM listen on /tmp/.java_pidPID (a file left by
	// an earlier process with this PID proves nothing).
	attachSocket := fmt.Sprintf("/tmp/.java_pid%d", pid)
	_, statErr := os.Stat(attachSocket)
	stale := statErr == nil
	for _, raw := range []string{"jvm:" + strconv.Itoa(pid), "gops://" + l.Addr().String()} {
		tg, err := ParseTarget(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), tg, Options{Mode: ModeLeak, Timeout: 20 * time.Second})
		if err == nil {
			s.Close()
			t.Fatalf("%s: --mode leak gave a dump (%s), want an error", raw, s.URL)
		}
		if !errors.Is(err, ErrNoLeakProfile) || !strings.Contains(err.Error(), "nothing was sent to") {
			t.Errorf("%s: err = %v, want ErrNoLeakProfile saying nothing was sent", raw, err)
		}
	}
	select {
	case <-accepted:
		t.Error("the gops address was dialed")
	default:
	}
	if _, err := os.Stat(attachSocket); err == nil && !stale {
		t.Error("the JVM was attached to")
	}
}

// TestGopsSilentAddress captures gops:// of an address that accepts and
// never answers (as an HTTP server waits for a request line): the error
// says that no answer came to gops' version command within the capture's
// timeout (shorter than the probe's 2s here), instead of a bare "i/o
// timeout".
func TestGopsSilentAddress(t *testing.T) {
	addr := listen(t, func(c net.Conn) {
		io.Copy(io.Discard, c) // reads the command, answers nothing
		c.Close()
	})
	tg, err := ParseTarget("gops://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{Timeout: 200 * time.Millisecond})
	if err == nil {
		_, err = io.ReadAll(s)
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "did not answer gops' version command within 200ms") || !strings.Contains(err.Error(), "not a gops agent") {
		t.Errorf("err = %v, want no answer to the version command within 200ms, not a gops agent", err)
	}
}
