package dumper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// TestOnSignalFormatAnyCase: File.Format and File.Compression are read as
// WriteFile reads them, in any case; the file is named from them, so
// "JSON" and "ZSTD" must make a .json.zst file, not a .txt.gz one that
// WriteFile then refuses on every signal.
func TestOnSignalFormatAnyCase(t *testing.T) {
	dir := t.TempDir()
	dumps := make(chan string, 1)
	errs := make(chan error, 1)
	stop, err := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{
		File:    FileOptions{Format: "JSON", Compression: "ZSTD"},
		OnDump:  func(p string) { dumps <- p },
		OnError: func(err error) { errs <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	var path string
	select {
	case path = <-dumps:
	case err := <-errs:
		t.Fatalf("dump failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no dump written")
	}
	if !strings.HasSuffix(path, ".json.zst") {
		t.Errorf("dump written to %s, want a .json.zst name", filepath.Base(path))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumpsRead, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumpsRead) != 1 || dumpsRead[0].Source.Kind != "go-traceback" {
		t.Fatalf("reading %s: %d dumps, %v", path, len(dumpsRead), err)
	}
}

// TestOnSignalPrefixDirectory: a Prefix with a directory writes there,
// and Keep prunes there; the dumps piled up without bound, since pruning
// looked for names with a '/' in dir itself.
func TestOnSignalPrefixDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "app")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dumps := make(chan string, 1)
	errs := make(chan error, 1)
	stop, err := OnSignal(context.Background(), syscall.SIGUSR1, dir, SignalOptions{
		Prefix:  "app/dump",
		Keep:    2,
		OnDump:  func(p string) { dumps <- p },
		OnError: func(err error) { errs <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i := range 4 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-dumps:
			if filepath.Dir(p) != sub || !strings.HasPrefix(filepath.Base(p), "dump-") {
				t.Errorf("signal %d: dump written to %s, want %s/dump-…", i, p, sub)
			}
		case err := <-errs:
			t.Fatalf("signal %d: %v", i, err)
		case <-time.After(20 * time.Second):
			t.Fatalf("signal %d: no dump written", i)
		}
	}
	entries, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %d dumps after 4 signals with Keep 2: %v", sub, len(entries), names)
	}
}
