package remote

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gops/agent"
)

func TestGopsAgent(t *testing.T) {
	parkedInRemoteTest(t, 7)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if err := agent.Listen(agent.Options{Addr: addr, ConfigDir: t.TempDir()}); err != nil {
		t.Fatalf("starting the gops agent: %v", err)
	}
	t.Cleanup(agent.Close)
	tg, err := ParseTarget("gops://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	if n := bytes.Count(body, []byte("remote.blockedInRemoteTest(")); n != 7 {
		t.Errorf("gops dump has %d goroutines in blockedInRemoteTest, want 7:\n%.2000s", n, body)
	}
}

// startJVM compiles and starts testdata/Parked.java and returns its pid.
func startJVM(t *testing.T) int {
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
	cmd := exec.Command("java", "-Xmx64m", "-XX:+UseSerialGC", "-cp", dir, "Parked")
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

func TestJVMCapture(t *testing.T) {
	pid := startJVM(t)
	tg, err := ParseTarget("jvm:"+strconv.Itoa(pid), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	if !bytes.Contains(body, []byte("Full thread dump")) {
		t.Fatalf("no thread dump from %s:\n%.1000s", s.URL, body)
	}
	if n := bytes.Count(body, []byte(`"parked-waiter-`)); n != 3 {
		t.Errorf("dump has %d parked-waiter threads, want 3", n)
	}
}

func TestJVMNoSuchProcess(t *testing.T) {
	if _, err := exec.LookPath("jcmd"); err != nil {
		t.Skip("jcmd not installed")
	}
	tg, _ := ParseTarget("jvm:999999", "")
	_, err := Open(context.Background(), tg, Options{Timeout: 20 * time.Second})
	if err == nil {
		t.Fatal("capturing a missing JVM succeeded")
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
	default:
		t.Fatalf("neither a JSON nor a text thread dump from %s:\n%.500s", s.URL, body)
	}
}
