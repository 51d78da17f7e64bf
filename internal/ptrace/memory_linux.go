//go:build linux

package ptrace

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Memory reads another process's memory with process_vm_readv(2): no stop,
// no file descriptor, one system call per read. A read of memory the
// process never touched makes it resident there, so a reader reads only
// what it needs.
type Memory struct {
	pid int
}

// NewMemory returns a reader of process pid's memory. Reading needs the
// same permission as tracing it.
func NewMemory(pid int) *Memory { return &Memory{pid: pid} }

// ReadAt reads len(p) bytes at address addr of the process. When fewer
// are read (the range runs into unmapped memory), the error says where.
func (m *Memory) ReadAt(p []byte, addr uint64) (int, error) {
	n := 0
	for n < len(p) {
		local := syscall.Iovec{Base: &p[n]}
		local.SetLen(len(p) - n)
		remote := remoteIovec{base: uintptr(addr) + uintptr(n), len: uint64(len(p) - n)}
		r, _, e := syscall.Syscall6(sysProcessVMReadv, uintptr(m.pid),
			uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.ESRCH:
			return n, fmt.Errorf("reading process %d: %w", m.pid, ErrExited)
		case e != 0:
			return n, fmt.Errorf("reading %d bytes at %#x of process %d: %w", len(p)-n, addr+uint64(n), m.pid, e)
		case r == 0:
			return n, fmt.Errorf("reading %d bytes at %#x of process %d: %w", len(p)-n, addr+uint64(n), m.pid, syscall.EFAULT)
		}
		n += int(r)
	}
	return n, nil
}

// remoteIovec is struct iovec for the other process's addresses.
type remoteIovec struct {
	base uintptr
	len  uint64
}
