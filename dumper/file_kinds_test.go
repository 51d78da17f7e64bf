//go:build linux

package dumper

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
)

// TestWriteFileKinds captures into each kind of existing path: a null
// device stays a device, a FIFO's reader gets a readable dump, a symlink
// stays a link and its target gets the dump, a 0600 file keeps its mode.
func TestWriteFileKinds(t *testing.T) {
	startFixture(t, 5)
	dir := t.TempDir()
	ctx := context.Background()
	opts := FileOptions{Format: output.Text}

	t.Run("device", func(t *testing.T) {
		dev := filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			if errors.Is(err, syscall.EPERM) {
				t.Skipf("mknod of a null device needs root: %v", err)
			}
			t.Fatal(err)
		}
		if err := WriteFile(ctx, dev, opts); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(dev); fi.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
			t.Fatalf("null device afterwards: %v", fi.Mode())
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- b
		}()
		if err := WriteFile(ctx, fifo, opts); err != nil {
			t.Fatal(err)
		}
		d, err := formats.ReadAll(bytes.NewReader(<-got), formats.ReadOptions{})
		if err != nil || len(d) != 1 || d[0].Total < 30 {
			t.Fatalf("the FIFO's reader got %d dumps (%v), want one of the fixture", len(d), err)
		}
		if fi, _ := os.Lstat(fifo); fi.Mode().Type() != fs.ModeNamedPipe {
			t.Fatalf("FIFO afterwards: %v", fi.Mode())
		}
	})
	t.Run("symlink and mode", func(t *testing.T) {
		target := filepath.Join(dir, "real.txt")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link.txt")
		if err := os.Symlink("real.txt", link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(ctx, link, opts); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(link); fi.Mode().Type() != fs.ModeSymlink {
			t.Fatalf("link afterwards: %v", fi.Mode())
		}
		fi, err := os.Stat(target)
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
			t.Fatalf("target afterwards: %v, %v", fi, err)
		}
	})
}
