//go:build linux

package dumper

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/faultfs"
)

// atomicChildEnv makes the test binary a writer that TestAtomicFileSurvivesKill9
// kills: it writes the path in the variable through CreateAtomic, slowly,
// and never gets to commit.
const atomicChildEnv = "STACKDUMP_ATOMIC_CHILD"

// dumpChunk is 256 KiB of goroutine dump text.
func dumpChunk() []byte {
	var b []byte
	for id := 1; len(b) < 256<<10; id++ {
		b = fmt.Appendf(b, "goroutine %d [chan receive]:\nmain.worker(0xc000%06x)\n\t/app/worker.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/app/main.go:30 +0x45\n\n", id, id)
	}
	return b[:256<<10]
}

// runAtomicChild is the child's side: chunk after chunk, each reported on
// standard output, until it is killed.
func runAtomicChild(path string) {
	f, err := CreateAtomic(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	chunk := dumpChunk()
	for i := range 1000 {
		if _, err := f.Write(chunk); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("wrote", i+1)
		time.Sleep(10 * time.Millisecond)
	}
	// Not reached in the test: the parent kills the process long before.
	f.Commit()
	os.Exit(0)
}

// tempFiles returns dir's temporary files of dump.txt, failing on
// anything else but dump.txt itself.
func tempFiles(t *testing.T, dir string) []string {
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

// TestAtomicFileSurvivesKill9 kills a process with SIGKILL while it
// writes a dump over an existing one: the destination still holds the old
// dump, whole, and the only leftover is the temporary file, which the
// next CreateAtomic removes once it is stale.
func TestAtomicFileSurvivesKill9(t *testing.T) {
	if path := os.Getenv(atomicChildEnv); path != "" {
		runAtomicChild(path)
		return
	}
	dir := t.TempDir()
	dst := filepath.Join(dir, "dump.txt")
	old := bytes.Repeat([]byte("goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1d\n\n"), 1000)
	if err := os.WriteFile(dst, old, 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAtomicFileSurvivesKill9$")
	cmd.Env = append(os.Environ(), atomicChildEnv+"="+dst)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "wrote 4" {
		if strings.HasPrefix(sc.Text(), "error") {
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed", err)
	}

	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("destination after kill -9: %d bytes (%v), want the old %d", len(got), err, len(old))
	}
	temps := tempFiles(t, dir)
	if len(temps) != 1 {
		t.Fatalf("temporary files after kill -9: %v, want one", temps)
	}
	tmp := filepath.Join(dir, temps[0])
	fi, err := os.Stat(tmp)
	if err != nil || fi.Size() < 4*256<<10 {
		t.Fatalf("temporary file %v, %v: want the partial dump", fi, err)
	}
	t.Logf("kill -9 left %s (%d bytes); %s kept its %d bytes", temps[0], fi.Size(), filepath.Base(dst), len(old))

	// A fresh leftover may belong to a writer still at work: kept.
	writeAtomic(t, dst, []byte("second\n"))
	if temps := tempFiles(t, dir); len(temps) != 1 {
		t.Fatalf("a fresh temporary file was removed: %v", temps)
	}
	// Once stale it is removed by the next write of the same file.
	stale := time.Now().Add(-StaleTempAge - time.Minute)
	if err := os.Chtimes(tmp, stale, stale); err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, dst, []byte("third\n"))
	if temps := tempFiles(t, dir); len(temps) != 0 {
		t.Fatalf("stale temporary files left: %v", temps)
	}
	if got, _ := os.ReadFile(dst); string(got) != "third\n" {
		t.Fatalf("destination %q", got)
	}
}

func writeAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestAtomicFileStaleTempsOnlyOwn checks that tidying touches nothing but
// stale temporary files of the same destination.
func TestAtomicFileStaleTempsOnlyOwn(t *testing.T) {
	dir := t.TempDir()
	stale := time.Now().Add(-2 * StaleTempAge)
	names := map[string]bool{ // name: removed
		".dump.txt.tmp-123": true,
		".dump.txt.tmp-abc": false, // not CreateTemp's digits
		".other.txt.tmp-1":  false, // another destination
		"dump.txt.tmp-1":    false, // not hidden: not ours
		".dump.txt.tmp-":    false,
	}
	for name := range names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, stale, stale); err != nil {
			t.Fatal(err)
		}
	}
	writeAtomic(t, filepath.Join(dir, "dump.txt"), []byte("new\n"))
	for name, removed := range names {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
}

// inFaultyDir runs fn in a private mount namespace with a fresh tmpfs of
// size bytes at dir, holding dump.txt with old in it; it skips the test
// where namespaces are not permitted.
func inFaultyDir(t *testing.T, size int, old []byte, fn func(dir, dst string) error) {
	t.Helper()
	dir := t.TempDir()
	err := faultfs.Run(func() error {
		if err := faultfs.MountTmpfs(dir, size); err != nil {
			return err
		}
		dst := filepath.Join(dir, "dump.txt")
		if err := os.WriteFile(dst, old, 0o644); err != nil {
			return err
		}
		return fn(dir, dst)
	})
	if faultfs.Skip(err) {
		t.Skipf("cannot make filesystem faults here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// checkUntouched reports, inside the namespace, a destination that lost
// its old content or temporary files left behind.
func checkUntouched(dir, dst string, old []byte) error {
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, old) {
		return fmt.Errorf("destination holds %d bytes (%v), want the old %d", len(got), err, len(old))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return fmt.Errorf("files left: %v", names)
	}
	return nil
}

// TestAtomicFileNoSpace fills a 64 KiB tmpfs with a 1 MiB dump: the write
// fails with ENOSPC naming the destination, Abort removes the temporary
// file, and the old dump is untouched.
func TestAtomicFileNoSpace(t *testing.T) {
	old := []byte("old dump\n")
	inFaultyDir(t, 64<<10, old, func(dir, dst string) error {
		f, err := CreateAtomic(dst)
		if err != nil {
			return err
		}
		chunk := dumpChunk()
		for range 4 {
			if _, err = f.Write(chunk); err != nil {
				break
			}
		}
		if err == nil {
			err = f.Commit()
		} else {
			f.Abort()
		}
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), dst) {
			return fmt.Errorf("error %v, want ENOSPC naming %s", err, dst)
		}
		t.Logf("error: %v", err)
		return checkUntouched(dir, dst, old)
	})
}

// TestAtomicFileReadOnly writes into a read-only mount: CreateAtomic
// fails with EROFS naming the destination, nothing is left behind.
func TestAtomicFileReadOnly(t *testing.T) {
	old := []byte("old dump\n")
	inFaultyDir(t, 1<<20, old, func(dir, dst string) error {
		if err := faultfs.RemountReadOnly(dir); err != nil {
			return err
		}
		_, err := CreateAtomic(dst)
		if !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), dst) {
			return fmt.Errorf("error %v, want EROFS naming %s", err, dst)
		}
		t.Logf("error: %v", err)
		return checkUntouched(dir, dst, old)
	})
}

// TestAtomicFilePermissionDenied writes into a directory its mode forbids
// writing, without the capabilities that let root ignore that: EACCES
// naming the destination, nothing left behind.
func TestAtomicFilePermissionDenied(t *testing.T) {
	old := []byte("old dump\n")
	inFaultyDir(t, 1<<20, old, func(dir, dst string) error {
		if err := os.Chmod(dir, 0o555); err != nil {
			return err
		}
		if err := faultfs.DropPermissionOverride(); err != nil {
			return err
		}
		_, err := CreateAtomic(dst)
		if !errors.Is(err, syscall.EACCES) || !strings.Contains(err.Error(), dst) {
			return fmt.Errorf("error %v, want EACCES naming %s", err, dst)
		}
		t.Logf("error: %v", err)
		return checkUntouched(dir, dst, old)
	})
}

// TestAtomicFileRenameFails commits over a directory: the rename fails,
// the error names the destination, the temporary file is removed.
func TestAtomicFileRenameFails(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "dump.txt")
	f, err := CreateAtomic(dst)
	if err != nil {
		t.Fatal(err)
	}
	// A directory that appears at the destination while the file is
	// written (CreateAtomic refuses one that is there already).
	if err := os.MkdirAll(filepath.Join(dst, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("dump\n"))
	err = f.Commit()
	if err == nil || !strings.Contains(err.Error(), dst) {
		t.Fatalf("Commit over a directory: %v", err)
	}
	if temps := tempFiles(t, dir); len(temps) != 0 {
		t.Fatalf("temporary files left: %v", temps)
	}
}
