//go:build linux

package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }

// write writes data to path through Create and Commit.
func write(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// kind returns the type bits of what is at path.
func kind(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Type()
}

// noTemps fails when dir holds a temporary file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// makeNullDevice makes a second null device (character device 1,3) at
// path, or skips the test where mknod is not permitted (not root).
func makeNullDevice(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("mknod of a null device is not permitted here (needs root): %v", err)
		}
		t.Fatal(err)
	}
}

// TestCreateDevice writes to a null device node: it stays a character
// device, no temporary file is made, and the write succeeds.
func TestCreateDevice(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	makeNullDevice(t, dev)
	f, err := Create(dev)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Direct() {
		t.Error("a device is not written directly")
	}
	if _, err := f.Write([]byte("dump\n")); err != nil {
		t.Fatal(err)
	}
	noTemps(t, dir) // none even before Commit
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if k := kind(t, dev); k != fs.ModeDevice|fs.ModeCharDevice {
		t.Fatalf("null device became %v", k)
	}
	noTemps(t, dir)
}

// TestCreateFIFO writes to a FIFO: the reader gets the data, the FIFO
// stays a FIFO.
func TestCreateFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		got <- b
	}()
	want := bytes.Repeat([]byte("goroutine 1 [running]:\n"), 10000)
	if err := write(fifo, want); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("reader got %d bytes, want %d", len(b), len(want))
	}
	if k := kind(t, fifo); k != fs.ModeNamedPipe {
		t.Fatalf("FIFO became %v", k)
	}
	noTemps(t, dir)
}

// TestCreateSocket writes to a Unix socket: the listener gets the data,
// the socket stays a socket.
func TestCreateSocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	if err := write(sock, []byte("dump\n")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "dump\n" {
		t.Fatalf("listener got %q", b)
	}
	if k := kind(t, sock); k != fs.ModeSocket {
		t.Fatalf("socket became %v", k)
	}
}

// TestCreateSymlink writes through a relative symbolic link into another
// directory: the link stays, its target gets the data (atomically, its
// mode kept), and no temporary file is left beside either.
func TestCreateSymlink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(rel, link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if k := kind(t, link); k != fs.ModeSymlink {
		t.Fatalf("link became %v", k)
	}
	if l, _ := os.Readlink(link); l != rel {
		t.Fatalf("link points to %q, want %q", l, rel)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v, want 0600", fi.Mode().Perm())
	}
	noTemps(t, dir)
	noTemps(t, other)
}

// TestCreateDanglingSymlink writes through a link whose target does not
// exist yet: the target is created, the link stays.
func TestCreateDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if k := kind(t, link); k != fs.ModeSymlink {
		t.Fatalf("link became %v", k)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real.json")); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}

// TestCreateKeepsModeAndOwner replaces a 0600 file owned by another user:
// the new file has mode 0600 and, where the process may give files away
// (root), the same owner.
func TestCreateKeepsModeAndOwner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	chowned := os.Chown(path, 65534, 65534) == nil
	if err := write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want a regular file 0600", fi.Mode())
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("holds %q", b)
	}
	if !chowned {
		t.Log("not root: owner kept is not checked")
		return
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
		t.Fatalf("owner %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
	noTemps(t, dir)
}

// TestCreateNewFileMode creates a new file: mode 0644.
func TestCreateNewFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.json")
	if err := write(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode() != 0o644 {
		t.Fatalf("mode %v, want 0644", fi.Mode())
	}
}

// TestCreateErrorsNameWhatIsWrong: a missing directory is named (not the
// temporary file), and a directory destination is refused.
func TestCreateErrorsNameWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nodir")
	_, err := Create(filepath.Join(missing, "out.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "directory "+missing+": no such file or directory") || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("missing directory: %v", err)
	}
	_, err = Create(dir)
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("directory destination: %v", err)
	}
	noTemps(t, dir)
}

// TestInterrupt removes the temporary file of an open File, and makes its
// Commit fail without publishing anything.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	defer func() {
		live.Lock()
		live.interrupted = false
		live.Unlock()
	}()
	if n := Interrupt(); n != 1 {
		t.Fatalf("Interrupt removed %d files, want 1", n)
	}
	noTemps(t, dir)
	if err := f.Commit(); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Commit after Interrupt: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination published after Interrupt: %v", err)
	}
	if _, err := Create(path); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Create after Interrupt: %v", err)
	}
}
