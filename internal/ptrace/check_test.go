//go:build linux && (amd64 || arm64)

package ptrace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/internal/ptrace"
)

// fakeProc is a procfs root made of files: this process is 100 (of this
// test's user, me), the kernel's ptrace_scope is scope ("": no Yama).
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T, scope string, selfCaps string) *fakeProc {
	p := &fakeProc{t: t, root: t.TempDir()}
	p.process(100, "stackdump", 1, me, 0, selfCaps)
	os.Symlink("100", filepath.Join(p.root, "self"))
	if scope != "" {
		p.write("sys/kernel/yama/ptrace_scope", scope+"\n")
	}
	return p
}

func (p *fakeProc) write(name, text string) {
	path := filepath.Join(p.root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// process writes /proc/PID/status as Linux 6 does (the fields Check reads
// among others).
func (p *fakeProc) process(pid int, name string, ppid, uid, tracer int, caps string) {
	p.write(strconv.Itoa(pid)+"/status", fmt.Sprintf(`Name:	%s
Umask:	0022
State:	S (sleeping)
Tgid:	%d
Ngid:	0
Pid:	%d
PPid:	%d
TracerPid:	%d
Uid:	%d	%d	%d	%d
Gid:	%d	%d	%d	%d
FDSize:	64
Threads:	5
CapInh:	0000000000000000
CapPrm:	%s
CapEff:	%s
`, name, pid, pid, ppid, tracer, uid, uid, uid, uid, uid, uid, uid, uid, caps, caps))
}

// me is this test's user, who owns the fake procfs's files (as a
// process's own files in procfs are its user's).
var me = os.Getuid()

const (
	noCaps  = "0000000000000000"
	allCaps = "000001ffffffffff"
)

func refusal(t *testing.T, root string, pid int, want ...string) {
	t.Helper()
	_, err := ptrace.Check(root, pid)
	if !errors.Is(err, ptrace.ErrRefused) {
		t.Fatalf("Check(%d): %v, want a refusal", pid, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Check(%d): %q lacks %q", pid, err, w)
		}
	}
}

func TestCheckYamaScope(t *testing.T) {
	for _, c := range []struct {
		scope, caps string
		parent      int // the target's parent
		want        []string
	}{
		{"1", noCaps, 1, []string{"ptrace_scope is 1", "not one of this process's", "CAP_SYS_PTRACE", "sysctl kernel.yama.ptrace_scope=0"}},
		{"2", noCaps, 100, []string{"ptrace_scope is 2", "CAP_SYS_PTRACE", "read process 200 as root"}},
		{"3", allCaps, 100, []string{"ptrace_scope is 3", "until it reboots", "net/http/pprof"}},
	} {
		p := newFakeProc(t, c.scope, c.caps)
		p.process(150, "sh", 1, me, 0, noCaps)
		p.process(200, "server", c.parent, me, 0, noCaps)
		refusal(t, p.root, 200, c.want...)
	}
	// What each scope allows.
	for _, c := range []struct {
		scope, caps string
		parent      int
	}{
		{"0", noCaps, 1},
		{"1", noCaps, 150}, // a grandchild: 200 → 150 → 100
		{"1", allCaps, 1},
		{"2", allCaps, 1},
	} {
		p := newFakeProc(t, c.scope, c.caps)
		p.process(150, "sh", 100, me, 0, noCaps)
		p.process(200, "server", c.parent, me, 0, noCaps)
		if _, err := ptrace.Check(p.root, 200); err != nil {
			t.Errorf("ptrace_scope %s, caps %s, parent %d: %v", c.scope, c.caps, c.parent, err)
		}
	}
}

func TestCheckFake(t *testing.T) {
	p := newFakeProc(t, "", noCaps)
	p.process(200, "server", 1, me+1, 0, noCaps)
	refusal(t, p.root, 200, fmt.Sprintf("runs as uid %d and this process as uid %d without CAP_SYS_PTRACE", me+1, me), fmt.Sprintf("read it as uid %d or as root", me+1))
	p.process(201, "server", 1, me, 300, noCaps)
	p.process(300, "dlv", 1, me, 0, noCaps)
	refusal(t, p.root, 201, "traced by process 300 (dlv) already", "detach")
	p.process(202, "server", 1, me, 0, noCaps)
	p.write("202/status", strings.Replace(read(t, p.root+"/202/status"), "Tgid:\t202", "Tgid:\t201", 1))
	refusal(t, p.root, 202, "202 is a thread of process 201 (server)", "pid:201")
	refusal(t, p.root, 100, "this process itself")
	refusal(t, p.root, 999, "no process 999")
}

func read(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckReal refuses real processes: this one, a thread, an exited
// child, a traced one, one that does not exist.
func TestCheckReal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux's")
	}
	ctx := context.Background()
	tk := startTick(t, "-goroutines", "10")
	if p, err := ptrace.Check("", tk.PID); err != nil || p.Name != "ticktarget" {
		t.Fatalf("Check(ticktarget): %+v, %v", p, err)
	}
	refusal(t, "", os.Getpid(), "this process itself")
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", tk.PID))
	for _, e := range ents {
		if e.Name() != strconv.Itoa(tk.PID) {
			refusal(t, "", atoi(e.Name()), "is a thread of process "+strconv.Itoa(tk.PID)+" (ticktarget)", "pid:"+strconv.Itoa(tk.PID))
			break
		}
	}
	// An exited child not yet collected.
	z := exec.Command("true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if p, _ := ptrace.ReadProcess("", z.Process.Pid); strings.HasPrefix(p.State, "Z") || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	refusal(t, "", z.Process.Pid, "has exited")
	z.Wait()
	refusal(t, "", z.Process.Pid, "no process")

	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		s, _ := ptrace.New(ctx, tk.PID, ptrace.Options{StopTimeout: stopTimeout})
		if _, err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		refusal(t, "", tk.PID, "traced by process "+strconv.Itoa(os.Getpid()))
		s.Resume()
	}
}

// TestCheckOtherUser runs Check as the user nobody against a process of
// root's, and against a process of nobody's that made itself undumpable.
func TestCheckOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("runs a check as another user: needs root")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ptrace-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "ptrace.test")
	exe, _ := os.ReadFile(os.Args[0])
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	check := func(pid int, want ...string) {
		t.Helper()
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=check "+strconv.Itoa(pid))
		cmd.SysProcAttr = nobody
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, w := range append([]string{"refused"}, want...) {
			if !strings.Contains(string(out), w) {
				t.Errorf("Check(%d) as nobody: %q lacks %q", pid, out, w)
			}
		}
	}
	tickBin := livechild.BuildTick(ctx, t, dir)
	root := livechild.RunTick(ctx, t, tickBin, "-goroutines", "10")
	check(root.PID, "runs as uid 0 and this process as uid 65534 without CAP_SYS_PTRACE", "read it as uid 0 or as root")

	cmd := exec.CommandContext(ctx, tickBin, "-goroutines", "10", "-undumpable")
	cmd.SysProcAttr = nobody
	undumpable := livechild.RunCommand(ctx, t, cmd)
	check(undumpable.PID, "is not dumpable", "read it as root")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
