// Package atomicfile opens the destination of an output file the way
// every writer of stackdump does (the CLI's -o, dumper.WriteFile,
// dumper.OnSignal, dumper.CreateAtomic):
//
//   - a new path or an existing regular file is written atomically: into a
//     temporary file beside it, synced, then renamed over it, keeping the
//     existing file's mode (and owner where permitted);
//   - a symbolic link is followed: the atomic write happens beside the
//     file it resolves to, and the link stays a link;
//   - a character or block device, a FIFO or a socket is written directly:
//     no temporary file, no rename, no fsync (/dev/null stays a device, a
//     reader of a FIFO gets the data);
//   - a directory is refused.
//
// The temporary files of open Files are known to the package, so that a
// command interrupted by a signal removes them ([Interrupt]) before it
// exits.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// File is an output opened by [Create]. For a regular destination it is a
// file written under a temporary name in its destination's directory and
// renamed into place by Commit, so that readers, crashes and kill -9 see
// either the old file or the complete new one, never a partial one. Abort
// (or any failed Commit) removes the temporary file and leaves an existing
// file at the destination untouched. A writer killed before Commit or
// Abort leaves its temporary file (".NAME.tmp-DIGITS") behind; Create
// removes those of the same destination older than [StaleTempAge].
//
// For a device, FIFO or socket, File writes the destination itself:
// Commit and Abort both just close it.
type File struct {
	*os.File
	path   string // the destination as given
	target string // where the data goes: path with symbolic links resolved
	direct bool   // target is a device, FIFO or socket, written in place
	done   bool
}

// StaleTempAge is how long a temporary file of Create may go unmodified
// before a later Create of the same destination removes it: a writer
// killed with SIGKILL (or a crash) leaves its temporary file behind.
const StaleTempAge = time.Hour

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// Create opens path for writing as the package documentation describes.
// A new file gets mode 0644, a replaced one keeps its mode (and owner
// where permitted). Errors name path, and a missing directory by its own
// name, never the temporary file.
func Create(path string) (*File, error) {
	target, fi, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if fi != nil {
		switch m := fi.Mode(); {
		case m.IsDir():
			return nil, fmt.Errorf("create %s: %w", path, syscall.EISDIR)
		case !m.IsRegular():
			return openDirect(path, target, m)
		}
	}
	return createTemp(path, target, fi)
}

// resolve follows the symbolic links of path to the path that will be
// written and returns it with its Lstat (nil when it does not exist yet).
// A directory that does not exist is an error naming it.
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for range maxLinks {
		fi, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return target, nil, checkDir(filepath.Dir(target))
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return target, fi, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, fmt.Errorf("following symbolic links: %w", syscall.ELOOP)
}

// checkDir returns an error naming dir when it is not a directory that
// exists, nil otherwise.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "directory", Path: dir, Err: syscall.ENOENT}
	case errors.Is(err, syscall.ENOTDIR) || err == nil && !fi.IsDir():
		return &fs.PathError{Op: "directory", Path: dir, Err: syscall.ENOTDIR}
	}
	return err
}

// openDirect opens a device, FIFO or socket for writing in place. Opening
// a FIFO waits for its reader, as any writer of one does.
func openDirect(path, target string, m fs.FileMode) (*File, error) {
	var f *os.File
	var err error
	if m&fs.ModeSocket != 0 {
		f, err = dialSocket(target)
	} else {
		f, err = os.OpenFile(target, os.O_WRONLY, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: f, path: path, target: target, direct: true}, nil
}

// dialSocket connects to a Unix socket (stream, else datagram) and
// returns its connection as a file.
func dialSocket(target string) (*os.File, error) {
	c, err := net.Dial("unix", target)
	if errors.Is(err, syscall.EPROTOTYPE) {
		c, err = net.Dial("unixgram", target)
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	type filer interface{ File() (*os.File, error) }
	return c.(filer).File()
}

// createTemp starts the atomic write of target, whose Lstat is fi (nil
// when it does not exist).
func createTemp(path, target string, fi fs.FileInfo) (*File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	// Created and registered under the lock, so that Interrupt either
	// refuses it or removes it.
	live.Lock()
	if live.interrupted {
		live.Unlock()
		return nil, fmt.Errorf("create %s: %w", path, ErrInterrupted)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err == nil {
		live.temps[f.Name()] = true
	}
	live.Unlock()
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, unnamed(err))
	}
	mode := os.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
		keepOwner(f, fi)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		forget(f.Name())
		return nil, fmt.Errorf("create %s: %w", path, unnamed(err))
	}
	removeStaleTemps(dir, base, f.Name())
	return &File{File: f, path: path, target: target}, nil
}

// keepOwner gives f the owner and group of the file it replaces. Only a
// privileged process may give a file away; elsewhere the error is
// ignored and the file is the writer's, as any new file is.
func keepOwner(f *os.File, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || (int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid()) {
		return
	}
	f.Chown(int(st.Uid), int(st.Gid))
}

// unnamed drops the *fs.PathError of a temporary file, whose name the
// caller never chose, keeping its cause.
func unnamed(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// removeStaleTemps removes the temporary files of base in dir ("."+base+
// ".tmp-" and digits, as CreateTemp names them) not modified for
// StaleTempAge, except keep. Errors are ignored: this is tidying.
func removeStaleTemps(dir, base, keep string) {
	prefix := "." + base + ".tmp-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > StaleTempAge && e.Name() != filepath.Base(keep) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Write writes to the temporary file (or the direct destination); errors
// name the destination, which is what the caller knows, not the temporary
// name.
func (a *File) Write(p []byte) (int, error) {
	n, err := a.File.Write(p)
	return n, a.named(err)
}

// WriteString is Write of a string.
func (a *File) WriteString(s string) (int, error) {
	n, err := a.File.WriteString(s)
	return n, a.named(err)
}

// named gives a *fs.PathError about the file written the destination's
// path.
func (a *File) named(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == a.Name() {
		return &fs.PathError{Op: pe.Op, Path: a.path, Err: pe.Err}
	}
	return err
}

// Path returns the destination path as given to Create.
func (a *File) Path() string { return a.path }

// Direct reports whether the destination is written in place (a device,
// FIFO or socket) rather than atomically.
func (a *File) Direct() bool { return a.direct }

// Commit finishes the write. Atomically written, it syncs the data to
// disk and renames the file into place, removing the temporary file on
// error; written directly, it closes the destination.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomic file already committed or aborted")
	}
	a.done = true
	if a.direct {
		if err := a.File.Close(); err != nil {
			return fmt.Errorf("write %s: %w", a.path, unnamed(err))
		}
		return nil
	}
	defer forget(a.Name())
	err := a.Sync()
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(a.Name(), a.target)
	}
	if err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("write %s: %w", a.path, unnamed(err))
	}
	syncDir(filepath.Dir(a.target))
	return nil
}

// Abort removes the temporary file (or closes the direct destination). It
// is a no-op after Commit, so `defer f.Abort()` is the usual pattern.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	if !a.direct {
		os.Remove(a.Name())
		forget(a.Name())
	}
}

// rename moves the temporary file into place unless Interrupt removed it
// meanwhile: a rename after an interrupt would publish a partial file.
func rename(tmp, target string) error {
	live.Lock()
	defer live.Unlock()
	if live.interrupted {
		return ErrInterrupted
	}
	return os.Rename(tmp, target)
}

// syncDir makes a rename durable; errors are ignored because some
// filesystems do not support syncing directories.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Check reports whether Create of path would fail, without writing
// anything at path: for a regular file or a new path it creates and
// removes a temporary file beside it; for a device, FIFO or socket it
// checks write access (opening a FIFO would wait for its reader).
func Check(path string) error {
	target, fi, err := resolve(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if fi != nil {
		switch m := fi.Mode(); {
		case m.IsDir():
			return fmt.Errorf("create %s: %w", path, syscall.EISDIR)
		case !m.IsRegular():
			if err := syscall.Access(target, 2 /* W_OK */); err != nil {
				return fmt.Errorf("create %s: %w", path, err)
			}
			return nil
		}
	}
	f, err := createTemp(path, target, fi)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}
