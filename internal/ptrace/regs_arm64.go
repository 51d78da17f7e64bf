//go:build linux

package ptrace

import (
	"syscall"
	"unsafe"
)

// ntARMTLS is the register set of arm64's tpidr_el0 (NT_ARM_TLS).
const ntARMTLS = 0x401

// readThread reads the registers of stopped thread tid.
func readThread(tid int) (Thread, error) {
	var r syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(tid, &r); err != nil {
		return Thread{}, err
	}
	var tls uint64
	iov := syscall.Iovec{Base: (*byte)(unsafe.Pointer(&tls))}
	iov.SetLen(8)
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_GETREGSET, uintptr(tid), ntARMTLS, uintptr(unsafe.Pointer(&iov)), 0, 0)
	if e != 0 {
		return Thread{}, e
	}
	return Thread{TID: tid, PC: r.Pc, SP: r.Sp, FP: r.Regs[29], LR: r.Regs[30], TLS: tls}, nil
}
