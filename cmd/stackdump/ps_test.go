//go:build linux && (amd64 || arm64)

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/internal/livechild"
)

// TestPs lists a Go program that serves net/http/pprof and a gops agent:
// its goroutines counted from its memory, its build information, and the
// targets to capture it by; a program that is not Go is not listed, nor
// stackdump itself.
func TestPs(t *testing.T) {
	ctx := context.Background()
	cmd := exec.CommandContext(ctx, livechild.BuildTick(ctx, t, t.TempDir()), "-goroutines", "500", "-pprof", "-gops")
	gopsDir := t.TempDir()
	cmd.Env = append(os.Environ(), "GOPS_CONFIG_DIR="+gopsDir)
	tk := livechild.RunCommand(ctx, t, cmd)
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()

	stdout, stderr, err := runCLI(t, "ps", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var procs []psProcess
	if err := json.Unmarshal([]byte(stdout), &procs); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var got *psProcess
	for i, p := range procs {
		switch p.PID {
		case tk.PID:
			got = &procs[i]
		case sleep.Process.Pid, os.Getpid():
			t.Errorf("ps lists %d (%s)", p.PID, p.Command)
		}
	}
	if got == nil {
		t.Fatalf("ps does not list ticktarget (%d):\n%s", tk.PID, stdout)
	}
	if got.Goroutines < 500 || got.Goroutines > 520 || got.GoVersion != runtime.Version() || got.Module != "ticktarget" || got.PPID != os.Getpid() || !strings.Contains(got.Command, "-goroutines 500") {
		t.Errorf("ps says %+v", *got)
	}
	want := map[string]string{"pprof": "http://" + tk.Pprof, "gops": "gops://127.0.0.1:" + gopsPort(t, gopsDir, tk.PID)}
	for _, s := range got.Serves {
		if want[s.Kind] != s.Target {
			t.Errorf("serves %s %s; want %v", s.Kind, s.Target, want)
		}
		delete(want, s.Kind)
	}
	if len(want) > 0 {
		t.Errorf("ps does not say it serves %v: %+v", want, got.Serves)
	}
	// The table says the same.
	table, _, err := runCLI(t, "ps")
	if err != nil || !strings.Contains(table, "pprof http://"+tk.Pprof) || !strings.Contains(table, "GOROUTINES") {
		t.Errorf("ps: %v\n%s", err, table)
	}
}

func gopsPort(t *testing.T, dir string, pid int) string {
	b, err := os.ReadFile(dir + "/" + strconv.Itoa(pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
