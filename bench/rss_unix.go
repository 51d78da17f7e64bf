//go:build unix

package bench

import "syscall"

// PeakRSS returns the most memory the process has had resident, in bytes
// (getrusage's ru_maxrss, KiB on Linux), or 0 where the platform does not
// say.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) << 10
}
