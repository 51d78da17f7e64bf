package dumper

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AtomicFile is a file written under a temporary name in its destination's
// directory and renamed into place by Commit, so that readers, crashes and
// kill -9 see either the old file or the complete new one, never a partial
// one. Abort (or any failed Commit) removes the temporary file and leaves an
// existing file at the destination untouched. A writer killed before
// Commit or Abort leaves its temporary file (".NAME.tmp-DIGITS") behind;
// CreateAtomic removes those of the same destination older than
// StaleTempAge.
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// CreateAtomic starts writing path atomically. The file gets mode 0644
// (or the mode of the file it replaces).
func CreateAtomic(path string) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	removeStaleTemps(dir, base, f.Name())
	return &AtomicFile{File: f, path: path}, nil
}

// StaleTempAge is how long a temporary file of CreateAtomic may go
// unmodified before a later CreateAtomic of the same path removes it: a
// writer killed with SIGKILL (or a crash) leaves its temporary file behind.
const StaleTempAge = time.Hour

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

// Write writes to the temporary file; errors name the destination, which
// is what the caller knows, not the temporary name.
func (a *AtomicFile) Write(p []byte) (int, error) {
	n, err := a.File.Write(p)
	return n, a.named(err)
}

// WriteString is Write of a string.
func (a *AtomicFile) WriteString(s string) (int, error) {
	n, err := a.File.WriteString(s)
	return n, a.named(err)
}

// named gives a *fs.PathError about the temporary file the destination's
// path.
func (a *AtomicFile) named(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == a.Name() {
		return &fs.PathError{Op: pe.Op, Path: a.path, Err: pe.Err}
	}
	return err
}

// Path returns the destination path.
func (a *AtomicFile) Path() string { return a.path }

// Commit syncs the data to disk and renames the file into place. On error
// the temporary file is removed.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("atomic file already committed or aborted")
	}
	a.done = true
	err := a.Sync()
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort removes the temporary file. It is a no-op after Commit, so
// `defer f.Abort()` is the usual pattern.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.Name())
}

// syncDir makes a rename durable; errors are ignored because some
// filesystems do not support syncing directories.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
