package livechild

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tick is a running testdata/gen/ticktarget: parked goroutines and a
// ticker that measures how long the program was kept from running.
type Tick struct {
	*Program
	PID int
	// Pprof is the address of its net/http/pprof server (-pprof), or "".
	Pprof string
	Cmd   *exec.Cmd
}

// BuildTick builds testdata/gen/ticktarget into dir with extra go build
// flags (-ldflags=-s -w, …) and returns the binary's path.
func BuildTick(ctx context.Context, t testing.TB, dir string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(dir, "ticktarget")
	// ticktarget is a module of its own (its gops agent is a module the
	// library does not require), built in its directory.
	args := append(append([]string{"build", "-o", bin}, flags...), ".")
	build := exec.CommandContext(ctx, "go", args...)
	build.Dir = filepath.Join(repoRoot(t), "testdata", "gen", "ticktarget")
	if out, err := build.CombinedOutput(); err != nil {
		if unreachable(out) {
			t.Skipf("testdata/gen/ticktarget's modules could not be downloaded (no module proxy?):\n%s", out)
		}
		t.Fatalf("go build ./testdata/gen/ticktarget: %v\n%s", err, out)
	}
	return bin
}

// StartTick builds and runs testdata/gen/ticktarget with args until the
// test ends, and returns it once it said it is ready.
func StartTick(ctx context.Context, t testing.TB, args ...string) *Tick {
	t.Helper()
	return RunTick(ctx, t, BuildTick(ctx, t, t.TempDir()), args...)
}

// RunTick runs a ticktarget binary built by BuildTick.
func RunTick(ctx context.Context, t testing.TB, bin string, args ...string) *Tick {
	t.Helper()
	return RunCommand(ctx, t, exec.CommandContext(ctx, bin, args...))
}

// RunCommand runs a ticktarget command made by the caller (another
// user's credentials, another environment).
func RunCommand(ctx context.Context, t testing.TB, cmd *exec.Cmd) *Tick {
	t.Helper()
	p := run(ctx, t, cmd)
	f := strings.Fields(p.readLine(t, "ticktarget"))
	if len(f) < 2 || f[0] != "ready" {
		t.Fatalf("ticktarget did not say it is ready: %q", f)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("ticktarget's ready line: %v", err)
	}
	tk := &Tick{Program: p, PID: pid, Cmd: cmd}
	if len(f) >= 4 && f[2] == "pprof" {
		tk.Pprof = f[3]
	}
	return tk
}

// Number sends command (ticks, gap, usr1) and returns the number it
// answers with.
func (tk *Tick) Number(t testing.TB, command string) int64 {
	t.Helper()
	line := tk.Send(t, command)
	v, ok := strings.CutPrefix(line, command+" ")
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		t.Fatalf("ticktarget answered %q to %q", line, command)
	}
	return n
}

// Stack returns the program's own runtime.Stack of every goroutine (the
// text debug=2 prints), taken when asked.
func (tk *Tick) Stack(t testing.TB) []byte {
	t.Helper()
	n := tk.Number(t, "stack")
	buf := make([]byte, n)
	if _, err := io.ReadFull(tk.out, buf); err != nil {
		t.Fatalf("ticktarget's stack: %v", err)
	}
	return buf
}

// RequireRunning fails the test unless, within 5 seconds, no thread of
// the program is in a tracing stop or traced, and then its ticker
// advances: what a tracer must leave behind, however it ended.
func (tk *Tick) RequireRunning(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		held := ""
		ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", tk.PID))
		for _, e := range ents {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", tk.PID, e.Name()))
			if err != nil {
				continue // exited since
			}
			if bytes.Contains(b, []byte("(tracing stop)")) || !bytes.Contains(b, []byte("TracerPid:\t0\n")) {
				held = e.Name()
			}
		}
		if held == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %s of the target is still stopped or traced", held)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The ticker advances once it gets a CPU, which on a loaded machine
	// can take a while: wait for the tick, up to the same deadline.
	before := tk.Number(t, "ticks")
	for {
		time.Sleep(5 * time.Millisecond)
		after := tk.Number(t, "ticks")
		if after > before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the target's ticker stands still: %d, then %d", before, after)
		}
	}
}
