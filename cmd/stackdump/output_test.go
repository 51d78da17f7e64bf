//go:build linux

package main

import (
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stackdump/stackdump/internal/faultfs"
)

// realDump is a debug=2 dump of a real Go 1.26 program (testdata/gen).
const realDump = "../../testdata/go/debug2_go126.txt"

// runOut runs the real root command and returns its standard output.
func runOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runCLI(t, args...)
	return out, err
}

// convertText is what `convert realDump --format text` writes.
func convertText(t *testing.T) string {
	t.Helper()
	want, err := runOut(t, "convert", realDump, "--format", "text")
	if err != nil || len(want) == 0 {
		t.Fatalf("convert to stdout: %q, %v", want[:min(len(want), 80)], err)
	}
	return want
}

// TestOutputKinds runs `stackdump convert -o PATH` onto each kind of
// existing path and checks what is there afterwards: a null device stays
// a device, a FIFO's reader gets the dump, a symlink stays and its
// target gets the dump, a 0600 file keeps its mode, "-" is standard
// output; no temporary file anywhere.
func TestOutputKinds(t *testing.T) {
	want := convertText(t)
	dir, other := t.TempDir(), t.TempDir()
	t.Run("device", func(t *testing.T) {
		dev := filepath.Join(dir, "null")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			if errors.Is(err, syscall.EPERM) {
				t.Skipf("mknod of a null device needs root: %v", err)
			}
			t.Fatal(err)
		}
		if _, err := runOut(t, "convert", realDump, "--format", "text", "-o", dev); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(dev); err != nil || fi.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
			t.Fatalf("null device afterwards: %v, %v", fi.Mode(), err)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			b, err := os.ReadFile(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(b)
		}()
		if _, err := runOut(t, "convert", realDump, "--format", "text", "-o", fifo); err != nil {
			t.Fatal(err)
		}
		if g := <-got; g != want {
			t.Fatalf("FIFO reader got %d bytes, want the %d of the dump", len(g), len(want))
		}
		if fi, _ := os.Lstat(fifo); fi.Mode().Type() != fs.ModeNamedPipe {
			t.Fatalf("FIFO afterwards: %v", fi.Mode())
		}
	})
	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(other, "real.txt")
		if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link.txt")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if _, err := runOut(t, "convert", realDump, "-o", link); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(link); fi.Mode().Type() != fs.ModeSymlink {
			t.Fatalf("link afterwards: %v", fi.Mode())
		}
		if b, _ := os.ReadFile(target); string(b) != want {
			t.Fatalf("link target holds %d bytes, want the %d of the dump", len(b), len(want))
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
			t.Fatalf("link target mode %v, want 0640", fi.Mode().Perm())
		}
	})
	t.Run("regular 0600", func(t *testing.T) {
		path := filepath.Join(dir, "dump.txt")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := runOut(t, "convert", realDump, "-o", path); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("dump.txt afterwards: %v, %v; want a regular file 0600", fi.Mode(), err)
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Fatalf("dump.txt holds %d bytes, want %d", len(b), len(want))
		}
	})
	t.Run("stdout", func(t *testing.T) {
		got, err := runOut(t, "convert", realDump, "--format", "text", "-o", "-")
		if err != nil || got != want {
			t.Fatalf("-o - wrote %d bytes to stdout (%v), want %d", len(got), err, len(want))
		}
		if _, err := os.Lstat("-"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a file named - was made: %v", err)
		}
	})
	for _, d := range []string{dir, other} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	}
}

// TestOutputKindsEveryWriter writes the output of diff and report onto a
// FIFO and through a symlink: every command opens its output the same way.
func TestOutputKindsEveryWriter(t *testing.T) {
	for _, tc := range []struct {
		ext  string // an extension the command writes
		args []string
	}{
		{".txt", []string{"diff", realDump, realDump}},
		{".html", []string{"report", realDump}},
	} {
		args := tc.args
		t.Run(args[0], func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo"+tc.ext)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			got := make(chan int, 1)
			go func() {
				b, _ := os.ReadFile(fifo)
				got <- len(b)
			}()
			if _, err := runOut(t, append(args, "-o", fifo)...); err != nil {
				t.Fatal(err)
			}
			if n := <-got; n == 0 {
				t.Fatal("the FIFO's reader got nothing")
			}
			target := filepath.Join(dir, "real"+tc.ext)
			link := filepath.Join(dir, "link"+tc.ext)
			if err := os.Symlink("real"+tc.ext, link); err != nil {
				t.Fatal(err)
			}
			if _, err := runOut(t, append(args, "-o", link)...); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(link)
			if err != nil || fi.Mode().Type() != fs.ModeSymlink {
				t.Fatalf("link afterwards: %v, %v", fi.Mode(), err)
			}
			if b, err := os.ReadFile(target); err != nil || len(b) == 0 {
				t.Fatalf("link target: %d bytes, %v", len(b), err)
			}
		})
	}
}

// countingServer serves a real dump on 127.0.0.1 and counts the requests.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	dump, err := os.ReadFile(realDump)
	if err != nil {
		t.Fatal(err)
	}
	return countRequests(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(dump)
	}))
}

// countRequests serves h on 127.0.0.1 until the test ends and counts the
// requests it gets.
func countRequests(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// pprofMux serves net/http/pprof's pages under /debug/pprof/ (the index
// serves each named profile) and nothing else.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	return mux
}

// TestCaptureUnwritableOutput captures into paths that cannot be written:
// the error names what is wrong (the missing directory, not a temporary
// file) and no request reaches the target, so it is never paused for a
// dump that cannot be saved.
func TestCaptureUnwritableOutput(t *testing.T) {
	srv, requests := countingServer(t)
	target := srv.URL + "/debug/pprof/goroutine"
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, out, mention string
		errno              error
	}{
		{"missing directory", filepath.Join(dir, "nodir", "out.json"), "directory " + filepath.Join(dir, "nodir") + ": no such file or directory", fs.ErrNotExist},
		{"parent is a file", filepath.Join(notDir, "out.json"), "directory " + notDir + ": not a directory", syscall.ENOTDIR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runOut(t, "capture", "-q", "--retries", "0", target, "-o", tc.out)
			if !errors.Is(err, tc.errno) || !strings.Contains(err.Error(), tc.mention) || strings.Contains(err.Error(), ".tmp-") {
				t.Fatalf("capture -o %s: %v; want %v mentioning %q", tc.out, err, tc.errno, tc.mention)
			}
			t.Logf("stackdump: %v", err)
		})
	}
	t.Run("read-only directory", func(t *testing.T) {
		ro := t.TempDir()
		err := faultfs.Run(func() error {
			if err := faultfs.MountTmpfs(ro, 1<<20); err != nil {
				return err
			}
			if err := faultfs.RemountReadOnly(ro); err != nil {
				return err
			}
			_, err := runOut(t, "capture", "-q", target, "-o", ro+"/")
			if !errors.Is(err, syscall.EROFS) {
				return errors.New("capture into a read-only directory: " + errorText(err))
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
	if n := requests.Load(); n != 0 {
		t.Fatalf("the target got %d requests; want none", n)
	}
	// The same target and a writable path: the server is reachable.
	if _, err := runOut(t, "capture", "-q", target, "-o", filepath.Join(dir, "ok.json")); err != nil || requests.Load() == 0 {
		t.Fatalf("capture into a writable path: %v, %d requests", err, requests.Load())
	}
}

func errorText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// TestUnwritableOutputBeforeReading runs diff and report with an -o in a
// missing directory and an input that never ends (a FIFO no one writes):
// they report the directory at once instead of reading first.
func TestUnwritableOutputBeforeReading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "never")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "nodir", "out")
	for _, args := range [][]string{
		{"diff", realDump, fifo, "-o", out},
		{"report", fifo, "-o", out},
	} {
		_, err := runOut(t, args...)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "directory "+filepath.Join(dir, "nodir")) {
			t.Fatalf("%s: %v; want the missing directory named", args[0], err)
		}
	}
}
