package dumper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// TestOnSignal sends the process SIGUSR1 five times with Keep 3: each
// signal writes a dump, the oldest beyond three are removed, and files
// that are not dumps are left alone.
func TestOnSignal(t *testing.T) {
	startFixture(t, 10)
	dir := t.TempDir()
	other := filepath.Join(dir, "stackdump-notes.txt")
	if err := os.WriteFile(other, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	dumps := make(chan string, 10)
	errs := make(chan error, 10)
	stop, err := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{
		Keep:    3,
		OnDump:  func(p string) { dumps <- p },
		OnError: func(err error) { errs <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	var written []string
	for i := range 5 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-dumps:
			written = append(written, filepath.Base(p))
		case err := <-errs:
			t.Fatalf("signal %d: %v", i, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("signal %d: no dump written", i)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := append(slices.Clone(written[2:]), "stackdump-notes.txt")
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("directory holds %q, want the newest three dumps and the notes %q", left, want)
	}
	if !slices.IsSorted(written) {
		t.Errorf("dump names do not sort by time: %q", written)
	}
	last := filepath.Join(dir, written[4])
	if filepath.Ext(last) != ".gz" {
		t.Errorf("default dump %s is not gzip text", last)
	}
	f, err := os.Open(last)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(ds) != 1 || len(fixtureRoutines(ds[0])["parkedMutex"]) != 10 {
		t.Errorf("reading %s back: %d dumps, %v", last, len(ds), err)
	}
}

// TestOnSignalReportsErrors: a missing directory is refused when the
// handler is set up, and the handler still runs: a signal makes a failed
// dump that OnError is told about (and the process lives on).
func TestOnSignalReportsErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	errs := make(chan error, 1)
	stop, err := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{OnError: func(err error) { errs <- err }})
	defer stop()
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir) {
		t.Errorf("OnSignal into a missing directory: %v, want a not-exist error naming %s", err, dir)
	}
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	select {
	case err := <-errs:
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("dump into a missing directory: %v, want a not-exist error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no error reported for a missing directory")
	}
}

// TestOnSignalChecksDirectory: what OnSignal refuses at set-up, and what
// it takes.
func TestOnSignalChecksDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		opts      SignalOptions
		want      string // "" for no error
	}{
		{"writable", dir, SignalOptions{}, ""},
		{"prefix directory missing", dir, SignalOptions{Prefix: "app/dump"}, "no such file or directory"},
		{"a file", file, SignalOptions{}, "is not a directory"},
		{"read-only", readOnly, SignalOptions{}, "permission denied"},
		{"unknown format", dir, SignalOptions{File: FileOptions{Format: "xml"}}, `"xml"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "read-only" && os.Geteuid() == 0 {
				t.Skip("root writes into a read-only directory")
			}
			stop, err := OnSignal(context.Background(), syscall.SIGUSR1, tc.dir, tc.opts)
			stop()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("OnSignal: %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("OnSignal: %v, want an error saying %q", err, tc.want)
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the check left files behind: %v", left)
	}
}

// TestOnSignalLogsByDefault sends SIGUSR1 to a real child process whose
// dump directory went away after set-up, with no OnError: the failed dump
// is said on its standard error, and the child lives on.
func TestOnSignalLogsByDefault(t *testing.T) {
	if dir := os.Getenv(signalChildEnv); dir != "" {
		runSignalChild(dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "dumps")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestOnSignalLogsByDefault$")
	cmd.Env = append(os.Environ(), signalChildEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatalf("the child said nothing on standard error after the signal: %v", sc.Err())
	}
	line := sc.Text()
	for _, want := range []string{"stackdump: goroutine dump on user defined signal 1 failed", dir, "no such file or directory"} {
		if !strings.Contains(line, want) {
			t.Errorf("child's standard error: %q, want it to say %q", line, want)
		}
	}
	// Alive: it answers, and exits by itself when its input closes.
	if _, err := stdin.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := out.ReadString('\n'); line != "pong\n" {
		t.Fatalf("child after the signal: %q, %v", line, err)
	}
}

const signalChildEnv = "STACKDUMP_SIGNAL_CHILD"

// runSignalChild is the child of TestOnSignalLogsByDefault: dumps into dir
// on SIGUSR1 with the default OnError; says "ready", answers "ping" with
// "pong", and exits when its standard input closes.
func runSignalChild(dir string) {
	stop, err := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println("pong")
	}
	stop()
	os.Exit(0)
}

// TestOnSignalStops checks that stop and a done context both end the
// handler (leakcheck in TestMain checks its goroutine is gone).
func TestOnSignalStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := OnSignal(ctx, syscall.SIGUSR1, t.TempDir(), SignalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	stop()
	stop() // idempotent
	stop, err = OnSignal(context.Background(), syscall.SIGUSR1, t.TempDir(), SignalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop()
}
