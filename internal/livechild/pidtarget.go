package livechild

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build says how testdata/gen/pidtarget is built: with which toolchain
// ("go1.22.12"; "" for the go command's own), for which architecture
// ("" for this machine's; another is built to be read, not run),
// stripped (-ldflags='-s -w') or not, as a position-independent
// executable or not.
type Build struct {
	Toolchain string
	Arch      string
	Stripped  bool
	PIE       bool
	// Cgo builds with cgo (dynamically linked; -cgo parks a goroutine in
	// C); otherwise CGO_ENABLED=0.
	Cgo bool
	// Test builds the program's test binary (go test -c), whose
	// TestBubble (Go 1.25+) parks goroutines in a synctest bubble: run it
	// with -test.run=TestBubble.
	Test bool
}

func (b Build) String() string {
	s := b.Toolchain
	if s == "" {
		s = "local"
	}
	if b.Arch != "" {
		s += "-" + b.Arch
	}
	if b.Stripped {
		s += "-stripped"
	}
	if b.PIE {
		s += "-pie"
	}
	if b.Cgo {
		s += "-cgo"
	}
	if b.Test {
		s += "-test"
	}
	return s
}

var builds struct {
	sync.Mutex
	dir   string
	bins  map[Build]string
	fails map[Build]string
}

// BuildPidTarget builds testdata/gen/pidtarget as b says, once per test
// binary (CleanupBuilds removes them), and returns its path. It skips the
// test when the toolchain cannot be had (GOTOOLCHAIN fetches it, 76 MB;
// .ci/run fetches those the tests use).
func BuildPidTarget(t testing.TB, b Build) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if bin, ok := builds.bins[b]; ok {
		return bin
	}
	if msg, ok := builds.fails[b]; ok {
		t.Skip(msg)
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "pidtarget")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir, builds.bins, builds.fails = dir, map[Build]string{}, map[Build]string{}
	}
	bin := filepath.Join(builds.dir, "pidtarget-"+b.String())
	args := []string{"build", "-o", bin}
	if b.Test {
		args = []string{"test", "-c", "-o", bin}
	}
	if b.Stripped {
		args = append(args, "-ldflags=-s -w")
	}
	if b.PIE {
		args = append(args, "-buildmode=pie")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	cmd.Dir = filepath.Join(repoRoot(t), "testdata", "gen", "pidtarget")
	tc := b.Toolchain
	if tc == "" {
		tc = "local"
	}
	cgo := "0"
	if b.Cgo {
		cgo = "1"
	}
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+tc, "CGO_ENABLED="+cgo, "GOFLAGS=-buildvcs=false")
	if b.Arch != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+b.Arch)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := fmt.Sprintf("cannot build testdata/gen/pidtarget with %s (GOTOOLCHAIN=%s fetches it; .ci/run does): %v\n%s", b, tc, err, out)
		if b.Toolchain == "" {
			t.Fatal(msg)
		}
		builds.fails[b] = msg
		t.Skip(msg)
	}
	builds.bins[b] = bin
	return bin
}

// CleanupBuilds removes what BuildPidTarget built; call it from TestMain.
func CleanupBuilds() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
		builds.dir, builds.bins = "", nil
	}
}

// PidTarget is a running testdata/gen/pidtarget.
type PidTarget struct {
	PID    int
	Exe    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	dir    string
	stderr *os.File
	// exited is closed once the program was waited for. Nothing waits
	// for it until Quit or the end of the test: a wait while a test
	// ptraces it would reap the ptrace stops meant for the tracer.
	exited   chan struct{}
	waitOnce sync.Once
}

// wait waits for the program to exit, at most d; it reports whether it
// did.
func (p *PidTarget) wait(d time.Duration) bool {
	p.waitOnce.Do(func() { go func() { p.cmd.Wait(); close(p.exited) }() })
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// StartPidTarget runs bin (a BuildPidTarget) with args and env added to
// the environment until the test ends, and returns it once every
// goroutine it starts is parked. A build for another architecture runs
// under qemu user emulation (qemu-aarch64 for arm64), which maps the
// program at its own addresses in the emulator's memory: its PID is the
// emulator's. The test is skipped when the emulator is not installed.
func StartPidTarget(t testing.TB, bin string, env []string, args ...string) *PidTarget {
	t.Helper()
	argv := append([]string{bin}, args...)
	if arch := archOf(bin); arch != "" && arch != runtime.GOARCH {
		emu, err := exec.LookPath("qemu-" + qemuArch(arch))
		if err != nil {
			t.Skipf("qemu-%s is not installed (Debian's qemu-user; .ci/run installs it): the %s build cannot run here", qemuArch(arch), arch)
		}
		argv = append([]string{emu}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &PidTarget{PID: cmd.Process.Pid, Exe: bin, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), dir: dir, stderr: stderr, exited: make(chan struct{})}
	t.Cleanup(func() {
		stdin.Close()
		if !p.wait(10 * time.Second) {
			cmd.Process.Kill()
			<-p.exited
		}
		stderr.Close()
		if t.Failed() {
			t.Logf("pidtarget: %v", cmd.ProcessState)
			if b, _ := os.ReadFile(stderr.Name()); len(b) > 0 && len(b) < 1<<16 {
				t.Logf("pidtarget's standard error:\n%s", b)
			}
		}
	})
	line := p.readLine(t)
	if line != "ready "+strconv.Itoa(p.PID) {
		t.Fatalf("pidtarget said %q, not ready", line)
	}
	return p
}

// archOf returns the architecture in a BuildPidTarget's file name, ""
// for this machine's.
func archOf(bin string) string {
	for _, a := range []string{"arm64", "amd64"} {
		if strings.Contains(filepath.Base(bin), "-"+a) {
			return a
		}
	}
	return ""
}

func qemuArch(goarch string) string {
	if goarch == "arm64" {
		return "aarch64"
	}
	return "x86_64"
}

func (p *PidTarget) readLine(t testing.TB) string {
	t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := p.out.ReadString('\n')
		ch <- result{strings.TrimSuffix(line, "\n"), err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("pidtarget: %v", r.err)
		}
		return r.line
	case <-time.After(60 * time.Second):
		t.Fatal("pidtarget did not answer in 60s")
	}
	return ""
}

// Send sends a command line and returns the answer.
func (p *PidTarget) Send(t testing.TB, cmd string) string {
	t.Helper()
	if _, err := io.WriteString(p.stdin, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	return p.readLine(t)
}

// Traceback returns the program's own runtime.Stack(all) at this moment.
func (p *PidTarget) Traceback(t testing.TB) []byte {
	t.Helper()
	path := filepath.Join(p.dir, "traceback.txt")
	if got := p.Send(t, "dump "+path); got != "done" {
		t.Fatalf("pidtarget dump: %s", got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Quit sends the program SIGQUIT, which makes the Go runtime print every
// goroutine (GOTRACEBACK permitting) and exit, and returns what it wrote
// to its standard error.
func (p *PidTarget) Quit(t testing.TB) []byte {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if !p.wait(30 * time.Second) {
		t.Fatal("pidtarget did not exit on SIGQUIT in 30s")
	}
	b, err := os.ReadFile(p.stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Labels returns the labels the program set, by goroutine id, as
// "k=v,k=v".
func (p *PidTarget) Labels(t testing.TB) map[int64]string {
	t.Helper()
	line := p.Send(t, "labels")
	out := map[int64]string{}
	// "ID QUOTED" pairs; a quoted value may hold spaces.
	rest := strings.TrimSpace(strings.TrimPrefix(line, "labels"))
	for rest != "" {
		id, after, _ := strings.Cut(rest, " ")
		q, err := strconv.QuotedPrefix(after)
		if err != nil {
			t.Fatalf("pidtarget labels %q: %v", line, err)
		}
		v, _ := strconv.Unquote(q)
		n, _ := strconv.ParseInt(id, 10, 64)
		out[n] = v
		rest = strings.TrimSpace(after[len(q):])
	}
	return out
}
