package goproc_test

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/internal/ptrace"
	"github.com/stackdump/stackdump/stack"
)

// gcoreOf writes a core of process pid with gcore (gdb) into dir, and
// returns its path; it skips the test without gcore.
func gcoreOf(t *testing.T, pid int, dir string) string {
	t.Helper()
	gcore, err := exec.LookPath("gcore")
	if err != nil {
		t.Skip("gcore (gdb) is not installed: the core tests need it (apt-get install gdb)")
	}
	prefix := filepath.Join(dir, "core")
	out, err := exec.Command(gcore, "-o", prefix, strconv.Itoa(pid)).CombinedOutput()
	path := prefix + "." + strconv.Itoa(pid)
	if _, serr := os.Stat(path); err != nil || serr != nil {
		t.Fatalf("gcore %d: %v, %v\n%s", pid, err, serr, out)
	}
	return path
}

// TestCoreMatchesProcess writes a core of a child held still (SIGSTOP)
// with gcore, and reads the core's memory, threads and registers: they
// are the child's, read at the same addresses with process_vm_readv and
// from a ptrace stop, and the executable's code the core left out is read
// from the executable.
func TestCoreMatchesProcess(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("reads a live process: Linux on amd64 or arm64")
	}
	ctx := context.Background()
	tk := livechild.StartTick(ctx, t, "-goroutines", "200")
	if err := syscall.Kill(tk.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(tk.PID, syscall.SIGCONT)
	waitState(t, tk.PID, "T")
	path := gcoreOf(t, tk.PID, t.TempDir())
	waitState(t, tk.PID, "T")

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := goproc.OpenCore(f)
	if err != nil {
		t.Fatal(err)
	}
	exePath, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", tk.PID))
	if c.PID != tk.PID || c.Executable != exePath || c.Arch != runtime.GOARCH {
		t.Errorf("core of pid %d, executable %q, %s; want %d, %q, %s", c.PID, c.Executable, c.Arch, tk.PID, exePath, runtime.GOARCH)
	}
	exe, err := os.Open(fmt.Sprintf("/proc/%d/exe", tk.PID))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	if err := c.UseExecutable(exe); err != nil {
		t.Fatal(err)
	}

	// The threads and their registers, as a ptrace stop sees them.
	s, err := ptrace.New(ctx, tk.PID, ptrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	byTID := map[int]ptrace.Thread{}
	for _, th := range live {
		byTID[th.TID] = th
	}
	if len(c.Threads) != len(live) {
		t.Errorf("the core has %d threads, the process %d", len(c.Threads), len(live))
	}
	for _, th := range c.Threads {
		l, ok := byTID[th.TID]
		if !ok || th.PC != l.PC || th.SP != l.SP || th.FP != l.FP || th.LR != l.LR || th.TLS != l.TLS {
			t.Errorf("thread %d: core %+v, process %+v", th.TID, th, l)
		}
	}

	// The memory: every mapping the process has, page by page where the
	// core holds it (anonymous memory up to 4 MiB a mapping, so as not to
	// make the child's untouched memory resident), and the executable's
	// mappings whole, from the core or the executable.
	mem := goproc.NewProcessMemory(tk.PID)
	compared, fromExe := 0, 0
	for _, m := range mappings(t, tk.PID) {
		if m.perms[0] != 'r' || m.name == "[vvar]" || m.name == "[vsyscall]" {
			continue
		}
		limit := m.end
		if m.name != exePath {
			limit = min(m.end, m.start+4<<20)
		}
		for a := m.start; a < limit; a += 4096 {
			want := make([]byte, 4096)
			got := make([]byte, 4096)
			n, err := c.ReadAt(got, a)
			if err != nil {
				if m.name == exePath {
					t.Fatalf("%s at %#x: %v", m.name, a, err)
				}
				continue // left out of the core (gcore skips some)
			}
			if _, err := mem.ReadAt(want, a); err != nil {
				continue
			}
			if n != len(got) || !bytes.Equal(got, want) {
				t.Fatalf("%#x (%s %s): the core's bytes differ from the process's", a, m.perms, m.name)
			}
			compared++
			if m.name == exePath {
				fromExe++
			}
		}
	}
	if compared < 100 || fromExe == 0 {
		t.Fatalf("compared %d pages (%d of the executable)", compared, fromExe)
	}
	t.Logf("%d pages equal, %d of them of the executable", compared, fromExe)

	// Memory the core does not have is an error, never zeros.
	if _, err := c.ReadAt(make([]byte, 8), 8); err == nil {
		t.Error("reading address 8 of the core succeeded")
	}

	// The goroutines read from the core are those read from the process
	// itself, still stopped.
	bin, err := goproc.OpenBinary(exe)
	if err != nil {
		t.Fatal(err)
	}
	fromCore, _, err := goproc.Read(ctx, bin, c, c.Options(bin))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := goproc.ReadProcess(ctx, tk.PID, goproc.ProcessOptions{NoStop: true})
	if err != nil {
		t.Fatal(err)
	}
	if fromCore.Source.Capture.Mode != goproc.ModeCore || len(fromCore.Routines) < 200 || len(fromCore.Routines) != len(pr.Dump.Routines) {
		t.Fatalf("the core holds %d goroutines (mode %s), the process %d", len(fromCore.Routines), fromCore.Source.Capture.Mode, len(pr.Dump.Routines))
	}
	for i, r := range fromCore.Routines {
		l := pr.Dump.Routines[i]
		if r.ID != l.ID || r.State != l.State || frames(r) != frames(l) {
			t.Fatalf("goroutine %d: from the core %s [%s]\n%s\nfrom the process %s [%s]\n%s", i, strconv.FormatInt(r.ID, 10), r.State, frames(r), strconv.FormatInt(l.ID, 10), l.State, frames(l))
		}
	}

	// Another build of the program is not the core's executable; files
	// that are not cores are not opened as cores.
	other := livechild.BuildTick(ctx, t, t.TempDir(), "-ldflags=-s -w")
	o, err := os.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := c.UseExecutable(o); err == nil {
		t.Error("UseExecutable took another build of the program")
	}
	if _, err := goproc.OpenCore(o); !errors.Is(err, goproc.ErrNotCore) {
		t.Errorf("OpenCore(an executable): %v", err)
	}
	head := make([]byte, 64)
	o.ReadAt(head, 0)
	if goproc.IsCore(head) {
		t.Error("IsCore(an executable)")
	}
	f.ReadAt(head, 0)
	if !goproc.IsCore(head) {
		t.Error("IsCore(a core) is false")
	}
	if ef, err := elf.NewFile(f); err != nil || ef.Type != elf.ET_CORE {
		t.Errorf("gcore wrote no ELF core: %v", err)
	}
}

// frames is a routine's frames, one "func file:line" a line.
func frames(r *stack.Routine) string {
	var b bytes.Buffer
	for _, f := range r.Frames() {
		fmt.Fprintf(&b, "%s %s:%d\n", f.Func, f.File, f.Line)
	}
	return b.String()
}

// waitState waits until process pid's state starts with state.
func waitState(t *testing.T, pid int, state string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, err := ptrace.ReadProcess("", pid)
		if err == nil && len(p.State) > 0 && p.State[:1] == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d: state %q, want %s", pid, p.State, state)
		}
		time.Sleep(time.Millisecond)
	}
}

type mapping struct {
	start, end  uint64
	perms, name string
}

func mappings(t *testing.T, pid int) []mapping {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	var ms []mapping
	for _, l := range bytes.Split(b, []byte("\n")) {
		var m mapping
		var off, dev, inode string
		n, _ := fmt.Sscanf(string(l), "%x-%x %s %s %s %s %s", &m.start, &m.end, &m.perms, &off, &dev, &inode, &m.name)
		if n >= 6 {
			ms = append(ms, m)
		}
	}
	return ms
}
