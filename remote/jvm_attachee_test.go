package remote

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// attachee is a running testdata/gen/jvm/Attachee.java whose standard
// output and error go to a file: a SIGQUIT that does not start the JVM's
// attach listener makes it write a "Full thread dump" there, as it would
// into a service's log, so the file counts the signals that reached it.
type attachee struct {
	pid    int
	log    string         // its standard output and error
	stdin  io.WriteCloser // closing it makes the JVM exit
	exited chan struct{}  // closed once the JVM has exited and was reaped
}

// startAttachee compiles and starts Attachee with the extra java options
// jvmArgs (after -Xmx64m -XX:+UseSerialGC) and returns once it printed
// "ready". The JVM is reaped as soon as it exits, as a service manager
// would, so that its /proc entry goes away; it is made to exit when the
// test ends.
func startAttachee(t *testing.T, jvmArgs ...string) *attachee {
	t.Helper()
	return startAttacheeEnv(t, nil, jvmArgs...)
}

// startAttacheeEnv is startAttachee with the variables env ("K=V") added
// to the JVM's environment.
func startAttacheeEnv(t *testing.T, env []string, jvmArgs ...string) *attachee {
	t.Helper()
	for _, tool := range []string{"javac", "java", "jcmd", "jstack"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: JVM capture safety not tested", tool)
		}
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the JVM process checks are Linux only")
	}
	dir := t.TempDir()
	src := filepath.Join("..", "testdata", "gen", "jvm", "Attachee.java")
	if out, err := exec.Command("javac", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	a := &attachee{log: filepath.Join(dir, "stdout.txt"), exited: make(chan struct{})}
	logFile, err := os.Create(a.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	args := append([]string{"-Xmx64m", "-XX:+UseSerialGC"}, jvmArgs...)
	cmd := exec.Command("java", append(args, "-cp", dir, "Attachee")...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), env...)
	if a.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a.pid = cmd.Process.Pid
	go func() { cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		// An exit removes the JVM's attach socket; SIGKILL would leave
		// it in /tmp for the next process with this pid.
		a.stdin.Close()
		select {
		case <-a.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-a.exited
		}
	})
	want := "ready " + strconv.Itoa(a.pid)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(a.output(t), want) {
		select {
		case <-a.exited:
			t.Fatalf("java %v exited before it was ready:\n%s", jvmArgs, a.output(t))
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("java %v did not print %q within 30s:\n%s", jvmArgs, want, a.output(t))
		}
	}
	return a
}

// output returns what the JVM has written so far.
func (a *attachee) output(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dumps counts the thread dumps the JVM wrote to its own standard output:
// one per SIGQUIT that did not start its attach listener.
func (a *attachee) dumps(t *testing.T) int {
	return strings.Count(a.output(t), "Full thread dump")
}

// exit makes the JVM exit (status 0) and waits until it was reaped.
func (a *attachee) exit(t *testing.T) {
	t.Helper()
	a.stdin.Close()
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the JVM did not exit within 30s of its standard input closing")
	}
}

// logTools puts jcmd and jstack wrappers first on PATH for the rest of
// the test: each appends its command line to the returned log file and
// runs the real tool, so that a test can tell which attaches were made.
func logTools(t *testing.T) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "tools.log")
	for _, tool := range []string{"jcmd", "jstack"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not installed", tool)
		}
		script := "#!/bin/sh\necho \"" + tool + " $*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// toolRuns returns the lines of a logTools log: one per jcmd or jstack run.
func toolRuns(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if b = bytes.TrimSpace(b); len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\n")
}
