// Package livechild runs the real programs of testdata/gen for tests:
// build, start, stop when the test ends.
package livechild

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the repository root, found from this file's path.
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("livechild: cannot find the repository root")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// StartStuck builds and runs testdata/gen/stuck (7 goroutines blocked
// forever in main.stuckWorker, short-lived goroutines in main.shortLived)
// until the test ends, and returns the base URL of its net/http/pprof
// server ("http://127.0.0.1:PORT").
func StartStuck(ctx context.Context, t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stuck")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testdata/gen/stuck")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/gen/stuck: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the program exits when its stdin closes
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("testdata/gen/stuck did not say where it listens: %q, %v", line, err)
	}
	return "http://" + addr
}
