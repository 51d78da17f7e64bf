//go:build !linux

package main

import (
	"context"
	"errors"
	"fmt"
)

func listGoProcesses(ctx context.Context, probe bool) ([]psProcess, error) {
	return nil, fmt.Errorf("ps: %w on this system (Linux only: it reads /proc)", errors.ErrUnsupported)
}
