//go:build !linux || !(amd64 || arm64)

package goproc

import (
	"errors"
	"runtime"
)

var errNoProcess = errors.New("goproc: reading a process's memory is supported on linux/amd64 and linux/arm64 only, not " + runtime.GOOS + "/" + runtime.GOARCH)

// ProcessMemory is the memory of a live process; on this system it reads
// nothing.
type ProcessMemory struct{ pid int }

// NewProcessMemory returns the memory of process pid.
func NewProcessMemory(pid int) *ProcessMemory { return &ProcessMemory{pid: pid} }

// ReadAt fails: there is no process_vm_readv here.
func (m *ProcessMemory) ReadAt(p []byte, addr uint64) (int, error) { return 0, errNoProcess }

// LoadBias fails: there is no /proc here.
func LoadBias(pid int, bin *Binary) (uint64, error) {
	if !bin.PIE {
		return 0, nil
	}
	return 0, errNoProcess
}

func monotonicNow() int64 { return 0 }
