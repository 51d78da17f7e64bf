//go:build linux

// Package faultfs makes filesystem faults for tests on Linux: a tiny tmpfs
// that fills up (ENOSPC), a read-only mount (EROFS), and permission bits
// that apply even to root (EACCES). Everything happens on one locked OS
// thread in a private mount namespace, so nothing is visible to the rest
// of the process or to the host, and nothing needs cleaning up: the thread,
// its namespace and its mounts go away when the function returns.
package faultfs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// ErrNotPermitted is returned when the process may not create a mount
// namespace or mount (not root, no CAP_SYS_ADMIN, seccomp): callers skip.
var ErrNotPermitted = errors.New("faultfs: mount namespaces are not permitted here")

// Run runs fn on a locked OS thread in a new private mount namespace and
// returns its error. fn must do its file operations on the calling
// goroutine (no goroutine it starts sees the namespace). The thread is
// discarded afterwards.
func Run(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the thread exits with this goroutine, taking
		// its namespace along.
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			done <- fmt.Errorf("%w: unshare: %v", ErrNotPermitted, err)
			return
		}
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			done <- fmt.Errorf("%w: making / private: %v", ErrNotPermitted, err)
			return
		}
		done <- fn()
	}()
	return <-done
}

// MountTmpfs mounts a tmpfs of size bytes on dir; call it inside Run.
func MountTmpfs(dir string, size int) error {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		return fmt.Errorf("%w: mount tmpfs on %s: %v", ErrNotPermitted, dir, err)
	}
	return nil
}

// RemountReadOnly makes the mount at dir read-only; call it inside Run.
// To make a directory of a larger filesystem read-only, bind-mount it on
// itself first with BindSelf.
func RemountReadOnly(dir string) error {
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("%w: remount %s read-only: %v", ErrNotPermitted, dir, err)
	}
	return nil
}

// BindSelf bind-mounts dir on itself, so that it can be remounted alone.
func BindSelf(dir string) error {
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("%w: bind %s: %v", ErrNotPermitted, dir, err)
	}
	return nil
}

// Capabilities that let root ignore permission bits.
const (
	capDACOverride   = 1
	capDACReadSearch = 2
	capFowner        = 3
)

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

// DropPermissionOverride removes, for the calling thread only, the
// capabilities that let root write where permission bits forbid it
// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER), so that a mode
// 0555 directory gives EACCES. Call it inside Run: the thread is
// discarded afterwards.
func DropPermissionOverride() error {
	hdr := capHeader{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return fmt.Errorf("capget: %w", e)
	}
	data[0].effective &^= 1<<capDACOverride | 1<<capDACReadSearch | 1<<capFowner
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return fmt.Errorf("capset: %w", e)
	}
	return nil
}

// Skip reports whether err says the faults cannot be made here.
func Skip(err error) bool { return errors.Is(err, ErrNotPermitted) }

// Leftovers lists what a write of dir/name left in dir: its temporary
// files (".NAME.tmp-DIGITS", as dumper.CreateAtomic names them) and any
// other file but name itself.
func Leftovers(dir, name string) (temps, others []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	prefix := "." + name + ".tmp-"
	for _, e := range entries {
		switch n := e.Name(); {
		case n == name:
		case strings.HasPrefix(n, prefix) && isDigits(n[len(prefix):]):
			temps = append(temps, n)
		default:
			others = append(others, n)
		}
	}
	return temps, others, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
