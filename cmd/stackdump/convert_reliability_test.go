//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/faultfs"
)

// appendGoroutine appends goroutine id of a generated debug=2 dump.
func appendGoroutine(dst []byte, id int) []byte {
	return fmt.Appendf(dst, "goroutine %d [chan receive]:\nmain.worker(0xc000%06x)\n\t/app/worker.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/app/main.go:30 +0x45\n\n", id, id)
}

// convertLeftovers returns dir's temporary files of dump.txt, failing on
// anything else but dump.txt itself.
func convertLeftovers(t *testing.T, dir string) []string {
	t.Helper()
	temps, others, err := faultfs.Leftovers(dir, "dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(others) > 0 {
		t.Errorf("unexpected files %v", others)
	}
	return temps
}

// TestConvertKilledMidWrite runs `stackdump convert - -o dump.txt` over
// an existing dump.txt, feeds it a large dump slowly, and kills it with
// SIGKILL once it has written part of the new file: dump.txt keeps its old
// content and the only leftover is the temporary file.
func TestConvertKilledMidWrite(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "dump.txt")
	old := []byte("goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1d\n\n")
	if err := os.WriteFile(dst, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "convert", "-", "-o", dst)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Feed goroutines until the temporary file holds some of them.
	var chunk []byte
	id := 0
	partial := ""
	for partial == "" && ctx.Err() == nil {
		chunk = chunk[:0]
		for len(chunk) < 256<<10 {
			id++
			chunk = appendGoroutine(chunk, id)
		}
		if _, err := stdin.Write(chunk); err != nil {
			t.Fatalf("feeding the dump: %v (stderr %s)", err, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
		for _, name := range convertLeftovers(t, dir) {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() > 0 {
				partial = name
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	stdin.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("convert ended with %v, want killed (stderr %s)", err, stderr.String())
	}
	if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("dump.txt after kill -9: %q, %v; want the old content", got[:min(len(got), 80)], err)
	}
	if temps := convertLeftovers(t, dir); len(temps) != 1 || temps[0] != partial {
		t.Fatalf("leftovers %v, want only %s", temps, partial)
	}
	fi, _ := os.Stat(filepath.Join(dir, partial))
	t.Logf("killed after %d goroutines fed; leftover %s holds %d bytes", id, partial, fi.Size())
}

// TestConvertFilesystemFaults runs convert -o into a full tmpfs and into a
// read-only one: a clear error naming the file, the old file untouched,
// no temporary file left.
func TestConvertFilesystemFaults(t *testing.T) {
	var in []byte
	for id := 1; len(in) < 2<<20; id++ {
		in = appendGoroutine(in, id)
	}
	src := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(src, in, 0o644); err != nil {
		t.Fatal(err)
	}
	old := []byte("old dump\n")
	for _, tc := range []struct {
		name  string
		fault func(dir string) error
		errno syscall.Errno
	}{
		{"no space", func(string) error { return nil }, syscall.ENOSPC},
		{"read-only", faultfs.RemountReadOnly, syscall.EROFS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			dst := filepath.Join(dir, "dump.txt")
			err := faultfs.Run(func() error {
				if err := faultfs.MountTmpfs(dir, 64<<10); err != nil {
					return err
				}
				if err := os.WriteFile(dst, old, 0o644); err != nil {
					return err
				}
				if err := tc.fault(dir); err != nil {
					return err
				}
				root := newRootCommand()
				root.SetArgs([]string{"convert", src, "-o", dst})
				root.SetOut(io.Discard)
				root.SetErr(io.Discard)
				err := root.Execute()
				if !errors.Is(err, tc.errno) || !strings.Contains(err.Error(), "dump.txt") {
					return fmt.Errorf("convert: %v, want %v naming dump.txt", err, tc.errno)
				}
				t.Logf("stackdump: %v", err)
				if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, old) {
					return fmt.Errorf("dump.txt holds %q (%v), want the old content", got[:min(len(got), 80)], err)
				}
				if temps := convertLeftovers(t, dir); len(temps) != 0 {
					return fmt.Errorf("temporary files left: %v", temps)
				}
				return nil
			})
			if faultfs.Skip(err) {
				t.Skipf("cannot make filesystem faults here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
