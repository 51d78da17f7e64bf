//go:build linux && (amd64 || arm64)

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// kernelCoreName is the name the kernel gives a core of process pid
// written in its working directory, or "" with why not when
// kernel.core_pattern is not a plain file name (a pipe to a crash
// collector, a directory, specifiers other than %p): this machine's
// settings are not changed for a test.
func kernelCoreName(pid int) (string, string) {
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		return "", err.Error()
	}
	pattern := strings.TrimSpace(string(b))
	if pattern == "" || strings.ContainsAny(pattern, "|/") || strings.Count(pattern, "%") != strings.Count(pattern, "%p") {
		return "", fmt.Sprintf("kernel.core_pattern is %q, not a plain file name (with %%p at most)", pattern)
	}
	name := strings.ReplaceAll(pattern, "%p", strconv.Itoa(pid))
	if u, _ := os.ReadFile("/proc/sys/kernel/core_uses_pid"); strings.TrimSpace(string(u)) == "1" && !strings.Contains(pattern, "%p") {
		name += "." + strconv.Itoa(pid)
	}
	return name, ""
}

// withoutRuntime keys each goroutine of d by its state and its frames
// outside the runtime and its go statement wrappers (a crash prints them
// as GOTRACEBACK=system does, a dump does not).
func withoutRuntime(d *stack.Dump) map[int64]string {
	m := map[int64]string{}
	for _, r := range d.Routines {
		var b strings.Builder
		b.WriteString(r.State)
		for _, f := range r.Frames() {
			if !strings.HasPrefix(f.Func, "runtime.") && !strings.Contains(f.Func, ".gowrap") {
				fmt.Fprintf(&b, "\n%s %s:%d", f.Func, f.File, f.Line)
			}
		}
		m[r.ID] = b.String()
	}
	return m
}

// TestAnalyzeKernelCore crashes a Go program with GOTRACEBACK=crash (a
// SIGQUIT: it prints every goroutine, then the kernel writes its core)
// and reads the core with analyze and convert: the goroutines are those
// the runtime printed as it died.
func TestAnalyzeKernelCore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bin := livechild.BuildTick(ctx, t, dir)
	cmd := exec.Command("sh", "-c", "ulimit -c unlimited && exec \"$0\" -goroutines 200", bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTRACEBACK=crash")
	var crash bytes.Buffer
	cmd.Stderr = &crash
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "ready" {
		t.Fatalf("ticktarget: %q", line)
	}
	pid, _ := strconv.Atoi(f[1])
	name, why := kernelCoreName(pid)
	if name == "" {
		t.Skipf("the kernel's core would not land in the test's directory: %s; goproc's core tests read gcore's cores instead", why)
	}
	syscall.Kill(pid, syscall.SIGQUIT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).CoreDump() {
		t.Skipf("the kernel wrote no core (%v): a core size limit it cannot lift, or a filesystem that refuses it", err)
	}
	corePath := filepath.Join(dir, name)
	if _, err := os.Stat(corePath); err != nil {
		t.Fatalf("the kernel says it dumped a core, but: %v", err)
	}

	// The runtime's own account of the moment.
	ds, err := formats.ReadAll(bytes.NewReader(crash.Bytes()), formats.ReadOptions{})
	if err != nil || len(ds) == 0 {
		t.Fatalf("reading the crash's output: %v\n%.2000s", err, crash.Bytes())
	}
	want := withoutRuntime(ds[0])

	jsonPath := filepath.Join(dir, "core.json")
	if _, stderr, err := runCLI(t, "convert", corePath, "-o", jsonPath); err != nil {
		t.Fatalf("convert: %v\n%s", err, stderr)
	}
	b, _ := os.ReadFile(jsonPath)
	d := readOne(t, b)
	if c := d.Source.Capture; c == nil || c.Mode != goproc.ModeCore {
		t.Errorf("capture %+v, want mode %s", d.Source.Capture, goproc.ModeCore)
	}
	got := withoutRuntime(d)
	matched := 0
	for id, k := range got {
		w, ok := want[id]
		if !ok {
			t.Errorf("goroutine %d is in the core's dump, not in the crash's", id)
			continue
		}
		if strings.Contains(k, "main.main.func") || strings.Contains(k, "main.sleeper") {
			if k != w {
				t.Errorf("goroutine %d: the crash printed\n%s\nthe core says\n%s", id, w, k)
			}
			matched++
		}
	}
	if matched < 200 {
		t.Errorf("%d parked goroutines matched, want 200", matched)
	}

	stdout, stderr, err := runCLI(t, "analyze", corePath)
	if err != nil || !strings.Contains(stdout, "goroutines in") {
		t.Fatalf("analyze: %v\n%s\n%s", err, stdout, stderr)
	}
	// The executable moved: the core names a path that is gone.
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(bin, moved); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runCLI(t, "analyze", corePath); err == nil || !strings.Contains(stderr+err.Error(), "--exe") {
		t.Errorf("analyze of a core whose executable moved: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "analyze", "--exe", moved, corePath); err != nil {
		t.Errorf("analyze --exe: %v\n%s", err, stderr)
	}
	// Another executable is refused, not misread.
	other := livechild.BuildTick(ctx, t, t.TempDir(), "-ldflags=-s -w")
	if _, stderr, err := runCLI(t, "analyze", "--exe", other, corePath); err == nil || !strings.Contains(stderr+err.Error(), "not the one the core's process ran") {
		t.Errorf("analyze --exe ANOTHER: %v\n%s", err, stderr)
	}
	_ = time.Second
}
