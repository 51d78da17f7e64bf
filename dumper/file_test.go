package dumper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

func TestWriteFileFormats(t *testing.T) {
	startFixture(t, 10)
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		opts   FileOptions
		kind   stack.Kind
		comp   output.Compression
		counts bool // grouped records
	}{
		{name: "dump.txt", kind: stack.KindGoTraceback, comp: output.None},
		{name: "dump.json.gz", kind: stack.KindJSON, comp: output.Gzip},
		{name: "dump.txt.zst", kind: stack.KindGoTraceback, comp: output.Zstd},
		{name: "dump.pb.gz", kind: stack.KindGoPprof, comp: output.Gzip, counts: true},
		{name: "grouped.json", opts: FileOptions{Capture: CaptureOptions{Mode: ModeGrouped}}, kind: stack.KindJSON, comp: output.None, counts: true},
		{name: "dump", opts: FileOptions{Format: output.JSON, Compression: output.Zstd}, kind: stack.KindJSON, comp: output.Zstd},
	} {
		path := filepath.Join(dir, tc.name)
		if err := WriteFile(context.Background(), path, tc.opts); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rd := formats.NewReader(f, formats.ReadOptions{})
		if _, err := rd.Next(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rd.Kind() != tc.kind || rd.Compression() != tc.comp {
			t.Errorf("%s: written as %s, %s; want %s, %s", tc.name, rd.Kind(), rd.Compression(), tc.kind, tc.comp)
		}
		f.Seek(0, 0)
		dumps, err := formats.ReadAll(f, formats.ReadOptions{})
		f.Close()
		if err != nil || len(dumps) != 1 {
			t.Errorf("%s: read back %d dumps, %v", tc.name, len(dumps), err)
			continue
		}
		var n int64
		for _, r := range fixtureRoutines(dumps[0])["parkedSelect"] {
			n += max(r.Count, 1)
		}
		if n != 10 {
			t.Errorf("%s: %d parkedSelect goroutines read back, want 10", tc.name, n)
		}
	}
	checkNoTemps(t, dir)
}

func TestWriteFileBadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []FileOptions{
		{Format: "xml"},
		{Compression: "brotli"},
		{Format: output.Pprof, By: dedupe.ByStack},
		{Capture: CaptureOptions{Mode: "fast"}},
	} {
		if err := WriteFile(context.Background(), filepath.Join(dir, "x"), opts); err == nil {
			t.Errorf("WriteFile with %+v succeeded", opts)
		}
	}
	checkNoTemps(t, dir)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed writes left %d files", len(entries))
	}
}

// TestWriteFileDiskFull writes into a 64 KiB tmpfs: the write fails with
// ENOSPC, the old file is untouched and no temporary file is left.
func TestWriteFileDiskFull(t *testing.T) {
	startFixture(t, fixturePerKind) // a dump far larger than 64 KiB
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	path := filepath.Join(dir, "dump.txt")
	writeOld(t, path)
	err := WriteFile(context.Background(), path, FileOptions{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("WriteFile on a full disk: %v, want ENOSPC", err)
	}
	checkOld(t, path)
	checkNoTemps(t, dir)
}

// TestWriteFileTooBig makes the writes fail with EFBIG through
// RLIMIT_FSIZE (Go ignores SIGXFSZ), a failure root cannot bypass.
func TestWriteFileTooBig(t *testing.T) {
	startFixture(t, fixturePerKind)
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.txt")
	writeOld(t, path)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = 16 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	err := WriteFile(context.Background(), path, FileOptions{})
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("WriteFile past RLIMIT_FSIZE: %v, want EFBIG", err)
	}
	checkOld(t, path)
	checkNoTemps(t, dir)
}

func TestWriteFileReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestWriteFileDiskFull and TestWriteFileTooBig cover failed writes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.txt")
	writeOld(t, path)
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if err := WriteFile(context.Background(), path, FileOptions{}); !errors.Is(err, os.ErrPermission) {
		t.Fatalf("WriteFile into a read-only directory: %v, want a permission error", err)
	}
	checkOld(t, path)
}

// TestWriteFileRenameFails targets a path that is a directory: everything
// is written, the rename fails, and the temporary file is removed.
func TestWriteFileRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.txt")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(context.Background(), path, FileOptions{}); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Errorf("the directory at the target changed: %v %v", fi, err)
	}
	checkNoTemps(t, dir)
}

// TestWriteFileCancelled cancels before the capture and in the middle of
// writing: the old file stays, no temporary file is left.
func TestWriteFileCancelled(t *testing.T) {
	startFixture(t, fixturePerKind)
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.json")
	writeOld(t, path)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteFile(ctx, path, FileOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFile with a cancelled context: %v", err)
	}
	checkOld(t, path)
	checkNoTemps(t, dir)

	// Cancelled once the capture is done: after the third check of ctx.
	ctx = &cancelAfter{Context: context.Background(), checks: 3}
	if err := WriteFile(ctx, path, FileOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteFile cancelled while writing: %v", err)
	}
	checkOld(t, path)
	checkNoTemps(t, dir)
}

// cancelAfter is a context that reports itself cancelled from its n-th
// Err call on, to cancel at a known step.
type cancelAfter struct {
	context.Context
	checks int32
	calls  atomic.Int32
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.checks {
		return context.Canceled
	}
	return nil
}

const oldContent = "the previous dump\n"

func writeOld(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(oldContent), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkOld(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != oldContent {
		t.Errorf("the existing file changed: %q, %v", b, err)
	}
}

func checkNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
