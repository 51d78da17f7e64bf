package dumper

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	stop := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{
		Keep:    3,
		OnDump:  func(p string) { dumps <- p },
		OnError: func(err error) { errs <- err },
	})
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

func TestOnSignalReportsErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	errs := make(chan error, 1)
	stop := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{OnError: func(err error) { errs <- err }})
	defer stop()
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

// TestOnSignalStops checks that stop and a done context both end the
// handler (leakcheck in TestMain checks its goroutine is gone).
func TestOnSignalStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := OnSignal(ctx, syscall.SIGUSR1, t.TempDir(), SignalOptions{})
	cancel()
	stop()
	stop() // idempotent
	stop = OnSignal(context.Background(), syscall.SIGUSR1, t.TempDir(), SignalOptions{})
	stop()
}
