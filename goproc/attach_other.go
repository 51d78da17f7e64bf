//go:build !linux || !(amd64 || arm64)

package goproc

import (
	"context"
	"errors"
	"fmt"

	"github.com/stackdump/stackdump/internal/ptrace"
)

// ErrRefused is wrapped by the errors that refuse a process before
// anything is attached.
var ErrRefused = ptrace.ErrRefused

// OpenProcess reads live processes on Linux (amd64, arm64) only.
func OpenProcess(procRoot string, pid int) (*Binary, error) {
	return nil, fmt.Errorf("reading process %d: %w on this system (Linux on amd64 or arm64 only)", pid, errors.ErrUnsupported)
}

// ReadProcess reads live processes on Linux (amd64, arm64) only.
func ReadProcess(ctx context.Context, pid int, opts ProcessOptions) (*ProcessRead, error) {
	_, err := OpenProcess(opts.ProcRoot, pid)
	return nil, err
}
