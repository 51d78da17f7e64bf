//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/faultfs"
)

// interruptedChild starts the test binary as `stackdump ARGS...`, writing
// into dir, and returns it with its stderr.
func interruptedChild(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// waitTemp waits until dir holds a temporary file of name with at least
// least bytes, feeding the child with feed (if not nil) meanwhile.
func waitTemp(t *testing.T, ctx context.Context, dir, name string, least int64, feed func() error) {
	t.Helper()
	for ctx.Err() == nil {
		if feed != nil {
			if err := feed(); err != nil {
				t.Fatalf("feeding the child: %v", err)
			}
		}
		temps, _, err := faultfs.Leftovers(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tmp := range temps {
			if fi, err := os.Stat(filepath.Join(dir, tmp)); err == nil && fi.Size() >= least {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no temporary file appeared")
}

// checkInterrupted waits for the child and checks its exit status and
// that dir holds nothing of name: no temporary file, no partial output.
func checkInterrupted(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, sig syscall.Signal, dir, name string) {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
		t.Fatalf("ended with %v, want exit status %d (stderr %s)", err, 128+int(sig), stderr)
	}
	temps, others, err := faultfs.Leftovers(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(temps) != 0 || len(others) != 0 {
		t.Fatalf("left behind: temporary %v, other %v", temps, others)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s published after the signal: %v", name, err)
	}
}

// TestConvertInterrupted sends SIGTERM, then SIGINT, to `stackdump convert
// - -o out.json` while its input is still arriving on standard input: it
// exits 143 (130), leaving no temporary file and no out.json.
func TestConvertInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd, stderr := interruptedChild(t, ctx, "convert", "-", "-o", filepath.Join(dir, "out.json"))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			id := 0
			feed := func() error {
				var chunk []byte
				for len(chunk) < 64<<10 {
					id++
					chunk = appendGoroutine(chunk, id)
				}
				_, err := stdin.Write(chunk)
				return err
			}
			waitTemp(t, ctx, dir, "out.json", 1, feed)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			checkInterrupted(t, cmd, stderr, sig, dir, "out.json")
		})
	}
}

// TestCaptureInterrupted sends SIGTERM to `stackdump capture URL -o
// out.json` while a real server on 127.0.0.1 is midway through its
// answer: capture winds down, exits 143, and leaves no temporary file.
func TestCaptureInterrupted(t *testing.T) {
	started := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		w.Write(buf[:len(buf)/2]) // half of a real dump, then a stall
		w.(http.Flusher).Flush()
		select {
		case started <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, stderr := interruptedChild(t, ctx, "capture", "-q", srv.URL+"/debug/pprof/goroutine", "-o", filepath.Join(dir, "out.json"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatalf("no request came (stderr %s)", stderr)
	}
	waitTemp(t, ctx, dir, "out.json", 0, nil)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	checkInterrupted(t, cmd, stderr, syscall.SIGTERM, dir, "out.json")
	t.Logf("stderr: %s", stderr)
}
