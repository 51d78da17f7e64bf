//go:build linux && (amd64 || arm64)

package goproc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// ProcessMemory is the memory of a live process on this machine, read
// with process_vm_readv: without stopping it, without ptrace (the same
// permission as ptrace's read access is needed: the same user and a
// ptrace_scope that allows it, or CAP_SYS_PTRACE). It reads only the
// pages asked for.
type ProcessMemory struct {
	pid int
}

// NewProcessMemory returns the memory of process pid.
func NewProcessMemory(pid int) *ProcessMemory { return &ProcessMemory{pid: pid} }

// iovMax is the kernel's limit of iovecs per process_vm_readv (IOV_MAX).
const iovMax = 1024

type iovec struct {
	base uintptr
	len  uint64
}

// ReadAt reads len(p) bytes at addr.
func (m *ProcessMemory) ReadAt(p []byte, addr uint64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	spans := []Span{{Addr: addr, Buf: p}}
	m.ReadScatter(spans)
	return spans[0].N, spans[0].Err
}

// ReadScatter reads every span, up to 1024 in one process_vm_readv. A span
// the kernel could not read whole is read again alone, so that its error
// is its own.
func (m *ProcessMemory) ReadScatter(spans []Span) {
	local := make([]iovec, 0, min(len(spans), iovMax))
	remote := make([]iovec, 0, min(len(spans), iovMax))
	for start := 0; start < len(spans); {
		local, remote = local[:0], remote[:0]
		end := start
		for end < len(spans) && len(local) < iovMax {
			s := &spans[end]
			s.N, s.Err = 0, nil
			if len(s.Buf) > 0 {
				local = append(local, iovec{uintptr(unsafe.Pointer(&s.Buf[0])), uint64(len(s.Buf))})
				remote = append(remote, iovec{uintptr(s.Addr), uint64(len(s.Buf))})
			}
			end++
		}
		n, _ := m.readv(local, remote)
		// The kernel stops at the first range it cannot read whole: the
		// spans before it are read, the rest are read again one by one.
		i := start
		for ; i < end && uint64(len(spans[i].Buf)) <= n; i++ {
			spans[i].N = len(spans[i].Buf)
			n -= uint64(len(spans[i].Buf))
		}
		for ; i < end; i++ {
			s := &spans[i]
			got, err := m.readv([]iovec{{uintptr(unsafe.Pointer(&s.Buf[0])), uint64(len(s.Buf))}}, []iovec{{uintptr(s.Addr), uint64(len(s.Buf))}})
			s.N = int(got)
			if got < uint64(len(s.Buf)) {
				s.Err = readErr(m.pid, s.Addr, err)
			}
		}
		start = end
	}
}

func readErr(pid int, addr uint64, err error) error {
	if err == nil {
		err = errShort
	}
	return fmt.Errorf("process %d at %#x: %w", pid, addr, err)
}

// readv is one process_vm_readv; it returns the bytes read.
func (m *ProcessMemory) readv(local, remote []iovec) (uint64, error) {
	if len(local) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.Syscall6(sysProcessVMReadv, uintptr(m.pid),
		uintptr(unsafe.Pointer(&local[0])), uintptr(len(local)),
		uintptr(unsafe.Pointer(&remote[0])), uintptr(len(remote)), 0)
	if errno != 0 {
		return 0, errno
	}
	return uint64(n), nil
}

// monotonicNow returns CLOCK_MONOTONIC in nanoseconds: the runtime's
// nanotime() of every process on this machine.
func monotonicNow() int64 {
	var ts syscall.Timespec
	const clockMonotonic = 1
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return ts.Nano()
}

// LoadBias returns where process pid's executable is loaded minus the
// address it was linked at (Options.LoadBias): 0 for a position-dependent
// executable, AT_ENTRY of its auxiliary vector minus the ELF entry point
// for a PIE.
func LoadBias(pid int, bin *Binary) (uint64, error) {
	if !bin.PIE {
		return 0, nil
	}
	auxv, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/auxv")
	if err != nil {
		return 0, fmt.Errorf("goproc: %w", err)
	}
	entry, ok := auxvEntry(auxv)
	if !ok {
		return 0, errors.New("goproc: no AT_ENTRY in /proc/" + strconv.Itoa(pid) + "/auxv")
	}
	return entry - bin.entry, nil
}

// auxvEntry returns AT_ENTRY from an auxiliary vector (64-bit pairs).
func auxvEntry(auxv []byte) (uint64, bool) {
	const atEntry = 9
	for len(auxv) >= 16 {
		k, v := binary.LittleEndian.Uint64(auxv), binary.LittleEndian.Uint64(auxv[8:])
		auxv = auxv[16:]
		if k == atEntry {
			return v, true
		}
	}
	return 0, false
}
