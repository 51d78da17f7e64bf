//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCaptureInterruptSaysInterrupted sends SIGINT to `stackdump capture`
// of a real target that answers slowly (the endpoint probe's 404 came
// first on a bare host:port): it says "interrupted" and nothing else —
// not "context canceled", not the probe's unrelated 404 — and exits 130
// with no file written.
func TestCaptureInterruptSaysInterrupted(t *testing.T) {
	target := startPauseTarget(t, "-goroutines", "10", "-delay", "20s")
	for _, args := range [][]string{
		{target.addr},
		{"--mode", "trace", target.addr},
		{target.addr, "http://" + target.addr + "/debug/pprof/goroutine"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			if len(args) > 1 && !strings.HasPrefix(args[0], "--") {
				out = dir + "/"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd, stderr := interruptedChild(t, ctx, append([]string{"capture", "-q", "-o", out}, args...)...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // the capture waits for the delayed answer
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("ended with %v, want exit status 130", err)
			}
			want := "stackdump: interrupted\n"
			if len(args) == 2 && !strings.HasPrefix(args[0], "--") {
				want = "stackdump: interrupted: 0 of 2 targets captured\n"
			}
			if stderr.String() != want {
				t.Errorf("standard error %q, want %q", stderr.String(), want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestOutputFull writes to /dev/full: the error is one clause, "writing
// /dev/full: no space left on device", not the os package's "write
// /dev/full: write /dev/full: …".
func TestOutputFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	target := startPauseTarget(t, "-goroutines", "10")
	for _, tc := range []struct {
		args   []string
		stdout *os.File
		want   string
	}{
		{[]string{"convert", demoDump, "-o", "/dev/full"}, nil, "stackdump: writing /dev/full: no space left on device\n"},
		{[]string{"analyze", demoDump, "-o", "/dev/full"}, nil, "stackdump: writing /dev/full: no space left on device\n"},
		{[]string{"convert", demoDump}, full, "stackdump: writing standard output: no space left on device\n"},
		{[]string{"capture", "-q", target.addr, "-o", "/dev/full"}, nil, "stackdump: " + target.addr + ": writing /dev/full: no space left on device\nstackdump: 1 of 1 target failed\n"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd, stderr := interruptedChild(t, ctx, tc.args...)
		if tc.stdout != nil {
			cmd.Stdout = tc.stdout
		}
		err := cmd.Run()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: ended with %v, want exit status 1", tc.args, err)
		}
		if stderr.String() != tc.want {
			t.Errorf("%v: standard error %q, want %q", tc.args, stderr.String(), tc.want)
		}
	}
}

// TestReportWritesReportHTML: report without -o writes report.html in the
// current directory and says where, instead of pouring HTML into the
// terminal; -o - still writes standard output. Run as a child in a
// directory of the test.
func TestReportWritesReportHTML(t *testing.T) {
	dir := t.TempDir()
	dump, err := filepath.Abs(demoDump)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, stderr := interruptedChild(t, ctx, "report", dump)
	cmd.Dir = dir
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	fi, err := os.Stat(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatalf("no report.html: %v", err)
	}
	want := "stackdump: wrote " + filepath.Join(dir, "report.html") + " (" + humanBytes(fi.Size()) + "): open it in a browser\n"
	if stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("standard error %q, output %d bytes; want %q and nothing on standard output", stderr.String(), stdout.Len(), want)
	}
}
