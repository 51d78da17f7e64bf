//go:build linux && (amd64 || arm64)

package main

import (
	"bytes"
	"context"
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

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// routineKeys maps each goroutine of d to its state and frames.
func routineKeys(d *stack.Dump) map[int64]string {
	m := map[int64]string{}
	for _, r := range d.Routines {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d", r.State, r.WaitMinutes)
		for _, f := range r.Frames() {
			fmt.Fprintf(&b, "\n%s %s:%d", f.Func, f.File, f.Line)
		}
		m[r.ID] = b.String()
	}
	return m
}

func readOne(t *testing.T, b []byte) *stack.Dump {
	t.Helper()
	ds, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
	if err != nil || len(ds) != 1 {
		t.Fatalf("reading %d bytes: %d dumps, %v", len(b), len(ds), err)
	}
	return ds[0]
}

// checkAgainstRuntime compares a dump read from the target's memory with
// the target's own runtime.Stack taken before and after: every goroutine
// that stayed the same between those is the same in ours.
func checkAgainstRuntime(t *testing.T, ours *stack.Dump, before, after []byte, parked int) {
	t.Helper()
	b, a, o := routineKeys(readOne(t, before)), routineKeys(readOne(t, after)), routineKeys(ours)
	same := 0
	for id, k := range b {
		if a[id] != k || strings.HasPrefix(k, "running ") || strings.Contains(k, "main.ticker") {
			continue // it moved, it took the dump, or it ticks (in and out of its system call)
		}
		same++
		if o[id] != k {
			t.Fatalf("goroutine %d: the runtime says\n%s\nwe read\n%s", id, k, o[id])
		}
	}
	if same < parked {
		t.Fatalf("%d goroutines stayed the same in the runtime's two dumps, want at least the %d parked", same, parked)
	}
}

// TestCapturePID captures a live Go program by its pid, at one instant
// and without stopping it, in every output format.
func TestCapturePID(t *testing.T) {
	ctx := context.Background()
	const parked = 300
	tk := livechild.StartTick(ctx, t, "-goroutines", strconv.Itoa(parked))
	dir := t.TempDir()
	target := "pid:" + strconv.Itoa(tk.PID)

	before := tk.Stack(t)
	out := filepath.Join(dir, "stopped.json")
	stdout, stderr, err := runCLI(t, "capture", target, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	after := tk.Stack(t)
	b, _ := os.ReadFile(out)
	d := readOne(t, b)
	if c := d.Source.Capture; c == nil || c.Mode != goproc.ModeStopped || c.Pause <= 0 || d.Source.Target != target {
		t.Fatalf("source %+v, capture %+v", d.Source, c)
	}
	checkAgainstRuntime(t, d, before, after, parked)
	if !strings.Contains(stdout, "read from its memory at one instant: the process was stopped") {
		t.Errorf("the summary does not say how the process was read:\n%s", stdout)
	}

	// Over the budget: read without stopping the target, and said so.
	before = tk.Stack(t)
	out = filepath.Join(dir, "live.json")
	_, stderr, err = runCLI(t, "capture", "--max-pause", "1ms", target, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	after = tk.Stack(t)
	b, _ = os.ReadFile(out)
	d = readOne(t, b)
	if c := d.Source.Capture; c == nil || c.Mode != goproc.ModeLive || c.Pause != 0 || c.PausePredicted <= time.Millisecond {
		t.Fatalf("capture %+v", c)
	}
	checkAgainstRuntime(t, d, before, after, parked)
	for _, want := range []string{"over --max-pause 1ms", "without stopping it", "not all at one instant"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	// Every output format.
	for _, name := range []string{"g.txt", "g.json.gz", "debug1", "g.pb.gz", "g.folded", "g.txt.zst"} {
		args := []string{"capture", "-q", target, "-o", filepath.Join(dir, name)}
		if name == "debug1" {
			args = append(args, "--format", "debug1")
		}
		out := filepath.Join(dir, name)
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
		b, _ := os.ReadFile(out)
		if name == "g.folded" {
			if !bytes.Contains(b, []byte("main.sleeper;main.sleeper")) {
				t.Errorf("%s: no sleeper stack in\n%.500s", name, b)
			}
			continue
		}
		ds, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
		if err != nil || len(ds) != 1 || ds[0].Total < parked {
			t.Errorf("%s: %d dumps, %v", name, len(ds), err)
		}
	}
}

// TestCapturePIDRefusals: what is refused before anything is attached,
// with what to do.
func TestCapturePIDRefusals(t *testing.T) {
	ctx := context.Background()
	tk := livechild.StartTick(ctx, t, "-goroutines", "10")
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	var thread string
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", tk.PID))
	for _, e := range ents {
		if e.Name() != strconv.Itoa(tk.PID) {
			thread = e.Name()
		}
	}
	for _, c := range []struct{ target, want string }{
		{"pid:" + strconv.Itoa(os.Getpid()), "is stackdump itself"},
		{"pid:" + strconv.Itoa(sleep.Process.Pid), "(sleep) is not a Go program"},
		{"pid:" + thread, "is a thread of process " + strconv.Itoa(tk.PID) + " (ticktarget), not a process: give the process id, pid:" + strconv.Itoa(tk.PID)},
		{"pid:0", "want pid:PID with a positive process id"},
		{"pid:x", "want pid:PID with a positive process id"},
	} {
		_, stderr, err := runCLI(t, "capture", c.target)
		if err == nil || !strings.Contains(stderr+err.Error(), c.want) {
			t.Errorf("capture %s: %v\n%s\nwant %q", c.target, err, stderr, c.want)
		}
	}
	// A Go release outside the layouts table: the program's build
	// information says go1.18.8 (the binary patched where it says its
	// version; the runtime does not read it).
	bin := livechild.BuildTick(ctx, t, t.TempDir())
	exe, _ := os.ReadFile(bin)
	i := bytes.Index(exe, []byte("\xff Go buildinf:"))
	j := bytes.Index(exe[i:], []byte(runtime.Version()))
	if i < 0 || j < 0 || len(runtime.Version()) != len("go1.18.8") {
		t.Fatalf("no %s in the build information of %s", runtime.Version(), bin)
	}
	copy(exe[i+j:], "go1.18.8")
	old := filepath.Join(t.TempDir(), "oldgo")
	if err := os.WriteFile(old, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	oldgo := livechild.RunTick(ctx, t, old, "-goroutines", "10")
	if _, stderr, err := runCLI(t, "capture", "pid:"+strconv.Itoa(oldgo.PID)); err == nil || !strings.Contains(stderr, "go1.18.8, which is not supported") {
		t.Errorf("capture of a go1.18.8 program: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "capture", "--mode", "trace", "pid:"+strconv.Itoa(tk.PID)); err == nil || !strings.Contains(stderr, "--mode full") {
		t.Errorf("--mode trace of a pid: target: %v\n%s", err, stderr)
	}
	if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", sleep.Process.Pid)); !bytes.Contains(st, []byte("TracerPid:\t0")) {
		t.Error("the refused process is traced")
	}
}

// TestCapturePIDKilledMidStop kills stackdump (SIGKILL) while it holds the
// target stopped, at the moment the target's status shows it traced, and
// at random moments; then interrupts it (SIGINT, SIGTERM) mid-stop. The
// target always runs on, untraced.
func TestCapturePIDKilledMidStop(t *testing.T) {
	ctx := context.Background()
	tk := livechild.StartTick(ctx, t, "-goroutines", "20000")
	statusPath := fmt.Sprintf("/proc/%d/status", tk.PID)
	traced := func() bool {
		b, _ := os.ReadFile(statusPath)
		return !bytes.Contains(b, []byte("TracerPid:\t0\n"))
	}
	// Each signal is sent until it reached stackdump while it held the
	// target stopped (on a loaded machine the poll can miss a stop of
	// tens of ms: that capture just completes); a SIGKILL is also sent
	// at random moments in between.
	hits := map[syscall.Signal]int{}
	want := map[syscall.Signal]int{syscall.SIGKILL: 3, syscall.SIGINT: 1, syscall.SIGTERM: 1}
	for i := 0; i < 40 && (hits[syscall.SIGKILL] < 3 || hits[syscall.SIGINT] < 1 || hits[syscall.SIGTERM] < 1); i++ {
		sig := syscall.SIGKILL
		switch {
		case hits[syscall.SIGKILL] >= 3 && hits[syscall.SIGINT] < 1:
			sig = syscall.SIGINT
		case hits[syscall.SIGKILL] >= 3:
			sig = syscall.SIGTERM
		}
		random := i%3 == 2 // a SIGKILL at a random moment, stopped or not
		cmd := exec.Command(os.Args[0], "capture", "-q", "pid:"+strconv.Itoa(tk.PID), "-o", filepath.Join(t.TempDir(), "g.json"))
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.Now().Add(10 * time.Second)
		at := time.Now().Add(time.Duration(i*7%30) * time.Millisecond)
		ended := false
		for !ended && !traced() && !(random && time.Now().After(at)) && time.Now().Before(deadline) {
			select {
			case <-exited:
				ended = true
			default:
			}
		}
		if ended {
			tk.RequireRunning(t)
			continue
		}
		wasTraced := traced()
		if random {
			sig = syscall.SIGKILL
		}
		cmd.Process.Signal(sig)
		err := <-exited
		if wasTraced && !random {
			hits[sig]++
			if sig != syscall.SIGKILL {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(sig) {
					t.Errorf("round %d: stackdump after %v: %v, want exit status %d", i, sig, err, 128+int(sig))
				}
			}
		}
		tk.RequireRunning(t)
	}
	for sig, n := range want {
		if hits[sig] < n {
			t.Errorf("%v reached stackdump %d times while it held the target stopped, want %d (all hits: %v)", sig, hits[sig], n, hits)
		}
	}
}

// TestWatchPID watches a Go program by its pid: each snapshot is read
// from its memory, at one instant when that fits the pause budget (300
// goroutines, about 1 ms, under 1s: it does, even on a loaded machine),
// and says so; with a budget under the prediction, without stopping it.
func TestWatchPID(t *testing.T) {
	ctx := context.Background()
	tk := livechild.StartTick(ctx, t, "-goroutines", "300")
	target := "pid:" + strconv.Itoa(tk.PID)
	for _, c := range []struct {
		maxPause string
		mode     string
	}{{"1s", goproc.ModeStopped}, {"1ms", goproc.ModeLive}} {
		stdout, stderr, err := runCLI(t, "watch", target, "--max-pause", c.maxPause, "--every", "50ms", "--count", "3", "--json")
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		lines := parseBudgetLines(t, stdout)
		if len(lines) != 3 {
			t.Fatalf("--max-pause %s: %d snapshots:\n%s", c.maxPause, len(lines), stdout)
		}
		for _, l := range lines {
			if l.Total < 300 || l.Capture.Mode != c.mode {
				t.Errorf("--max-pause %s: snapshot %d: %d goroutines, capture %+v\n%s", c.maxPause, l.Snapshot, l.Total, l.Capture, stderr)
			}
		}
	}
	tk.RequireRunning(t)
}
