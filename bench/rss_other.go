//go:build !unix

package bench

// PeakRSS returns 0: this platform has no getrusage.
func PeakRSS() int64 { return 0 }
