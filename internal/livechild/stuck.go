// Package livechild runs the real programs of testdata/gen for tests:
// build, start, stop when the test ends.
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
	return Start(ctx, t, "stuck").URL
}

// Program is a running program of testdata/gen: a Go program that serves
// net/http/pprof and prints "listening ADDR" first, or a JVM (StartJava).
// Both answer each command line sent to their standard input with one
// line once it took effect, and exit when it closes.
type Program struct {
	// URL is the base URL of a Go program's net/http/pprof server
	// ("http://127.0.0.1:PORT"); PID is a JVM's process id, as it printed
	// it in its "ready PID" line.
	URL, PID string
	stdin    io.WriteCloser
	out      *bufio.Reader
}

// Start builds ./testdata/gen/DIR (from the repository root) and runs it
// until the test ends, when its standard input is closed and it is
// waited for. A DIR with a go.mod of its own (a program that needs a
// module the library does not require, as gopsagent) is built in its
// module; when that module cannot be downloaded (no module proxy) the
// test is skipped.
func Start(ctx context.Context, t testing.TB, dir string) *Program {
	t.Helper()
	return StartArgs(ctx, t, dir)
}

// StartArgs is Start with command-line arguments for the program.
func StartArgs(ctx context.Context, t testing.TB, dir string, args ...string) *Program {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testdata/gen/"+dir)
	build.Dir = repoRoot(t)
	if _, err := os.Stat(filepath.Join(build.Dir, "testdata", "gen", dir, "go.mod")); err == nil {
		build.Args[len(build.Args)-1] = "."
		build.Dir = filepath.Join(build.Dir, "testdata", "gen", dir)
	}
	if out, err := build.CombinedOutput(); err != nil {
		if unreachable(out) {
			t.Skipf("testdata/gen/%s's modules could not be downloaded (no module proxy?):\n%s", dir, out)
		}
		t.Fatalf("go build ./testdata/gen/%s: %v\n%s", dir, err, out)
	}
	return StartCommand(ctx, t, exec.CommandContext(ctx, bin, args...), "testdata/gen/"+dir)
}

// StartCommand runs cmd, a Go program built by the test that serves HTTP
// and prints "listening ADDR" first, until the test ends, as Start runs
// the programs of testdata/gen; name names it in failures.
func StartCommand(ctx context.Context, t testing.TB, cmd *exec.Cmd, name string) *Program {
	t.Helper()
	p := run(ctx, t, cmd)
	line := p.readLine(t, name)
	addr, ok := strings.CutPrefix(line, "listening ")
	if !ok {
		t.Fatalf("%s did not say where it listens: %q", name, line)
	}
	p.URL = "http://" + addr
	return p
}

// unreachable reports whether go build's output says a module could not
// be downloaded because the network or the module proxy is out of reach.
func unreachable(out []byte) bool {
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "network is unreachable", "i/o timeout", "TLS handshake timeout", "GOPROXY=off"} {
		if strings.Contains(string(out), s) {
			return true
		}
	}
	return false
}

// run starts cmd with pipes on its standard input and output, and stops
// it when the test ends: standard input closed, then killed.
func run(ctx context.Context, t testing.TB, cmd *exec.Cmd) *Program {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the programs exit when their stdin closes
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("%s wrote on standard error:\n%s", filepath.Base(cmd.Path), stderr.String())
		}
	})
	return &Program{stdin: stdin, out: bufio.NewReader(stdout)}
}

func (p *Program) readLine(t testing.TB, who string) string {
	t.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: reading its output: %q, %v", who, line, err)
	}
	return strings.TrimSpace(line)
}

// Send writes line to the program's standard input and returns the line
// it answers with (without the line break).
func (p *Program) Send(t testing.TB, line string) string {
	t.Helper()
	if _, err := fmt.Fprintln(p.stdin, line); err != nil {
		t.Fatalf("livechild: writing %q: %v", line, err)
	}
	return p.readLine(t, "answering "+line)
}
