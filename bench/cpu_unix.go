//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the user plus system CPU time the process has used, or
// 0 where the platform does not say. On a machine shared with other work,
// CPU time per operation is far steadier than wall time per operation.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
