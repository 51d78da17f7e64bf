package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The progress line is drawn only on a terminal and never with -q.
func TestWantProgress(t *testing.T) {
	if wantProgress(&bytes.Buffer{}, false) {
		t.Error("progress on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if wantProgress(f, false) {
		t.Error("progress on a regular file")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !wantProgress(tty, false) || wantProgress(tty, true) {
			t.Error("on a terminal: progress unless quiet")
		}
	}
}

// The line says bytes read of the size, goroutines read and the rate.
func TestReadProgressLine(t *testing.T) {
	p := &readProgress{name: "big.txt", size: 48 << 20}
	p.bytes.Store(12 << 20)
	p.routines.Store(150000)
	if got, want := p.line(2*time.Second), "reading big.txt: 12.0 MiB of 48.0 MiB (25%) · 150000 goroutines · 6.0 MiB/s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p = &readProgress{name: "standard input"}
	p.bytes.Store(100)
	p.routines.Store(1)
	if got, want := p.line(time.Second), "reading standard input: 100 B · 1 goroutine · 100 B/s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A command that reads through a terminal shows no line when it finishes
// within the delay, and never writes one to a pipe (runCLI's buffers).
func TestNoProgressOffTerminal(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "go", "repanic_go126.txt")
	for _, args := range [][]string{
		{"analyze", dump}, {"convert", dump}, {"report", dump, "-o", "-"}, {"diff", dump, dump}, {"query", dump, "total"},
	} {
		_, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if strings.Contains(stderr, "reading ") || strings.Contains(stderr, "\r") {
			t.Errorf("%v: progress off a terminal: %q", args, stderr)
		}
	}
}

// On a real terminal (a pty made by script(1)), a slow input shows the
// progress line on standard error after half a second; -q hides it.
func TestProgressOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: no pty to test the progress line on")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "sigquit_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, quiet := range []bool{false, true} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "slow.txt")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		line := os.Args[0] + " analyze " + fifo
		if quiet {
			line += " -q"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, script, "-q", "-e", "-f", "-c", line, "/dev/null")
		cmd.Env = append(os.Environ(), runMainEnv+"=1", "TERM=dumb")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		// Half the dump, a pause longer than the delay, the rest.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		w.Write(data[:len(data)/2])
		time.Sleep(1200 * time.Millisecond)
		w.Write(data[len(data)/2:])
		w.Close()
		err = cmd.Wait()
		cancel()
		if err != nil {
			t.Fatalf("quiet=%v: %v\n%s", quiet, err, out.String())
		}
		got := out.String()
		shown := strings.Contains(got, "\x1b[Kreading "+fifo+": ")
		if shown == quiet {
			t.Errorf("quiet=%v: progress line shown=%v in:\n%q", quiet, shown, got)
		}
		if !quiet && !strings.Contains(got, " goroutines · ") {
			t.Errorf("progress line without the goroutines read:\n%q", got)
		}
		if !strings.Contains(got, "SIGNAL  SIGQUIT: quit") {
			t.Errorf("quiet=%v: no analysis after the progress:\n%q", quiet, got)
		}
	}
}
