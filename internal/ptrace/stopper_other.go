//go:build !linux || !(amd64 || arm64)

package ptrace

import (
	"context"
	"errors"
	"fmt"
)

// Stopper stops every thread of a process: Linux on amd64 and arm64 only.
type Stopper struct{}

// New returns errors.ErrUnsupported on this system.
func New(ctx context.Context, pid int, opts Options) (*Stopper, error) {
	return nil, fmt.Errorf("ptrace: stopping another process: %w on this system (Linux on amd64 or arm64 only)", errors.ErrUnsupported)
}

// Stop is not supported on this system.
func (s *Stopper) Stop() ([]Thread, error) { return nil, errors.ErrUnsupported }

// Resume is not supported on this system.
func (s *Stopper) Resume() error { return errors.ErrUnsupported }

// Stats is empty on this system.
func (s *Stopper) Stats() StopStats { return StopStats{} }

// Close does nothing on this system.
func (s *Stopper) Close() error { return nil }
