//go:build linux

package ptrace

import "syscall"

// readThread reads the registers of stopped thread tid.
func readThread(tid int) (Thread, error) {
	var r syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(tid, &r); err != nil {
		return Thread{}, err
	}
	return Thread{TID: tid, PC: r.Rip, SP: r.Rsp, FP: r.Rbp, TLS: r.Fs_base}, nil
}
