//go:build !linux

package ptrace

import (
	"errors"
	"fmt"
)

// Memory reads another process's memory: Linux only.
type Memory struct{ pid int }

// NewMemory returns a reader whose reads fail on this system.
func NewMemory(pid int) *Memory { return &Memory{pid: pid} }

// ReadAt fails with errors.ErrUnsupported on this system.
func (m *Memory) ReadAt(p []byte, addr uint64) (int, error) {
	return 0, fmt.Errorf("reading process %d: %w on this system", m.pid, errors.ErrUnsupported)
}
