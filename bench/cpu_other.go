//go:build !unix

package bench

import "time"

// CPUTime returns 0: this platform has no getrusage.
func CPUTime() time.Duration { return 0 }
