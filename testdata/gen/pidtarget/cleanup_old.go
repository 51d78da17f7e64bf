//go:build !go1.24

package main

// blockInCleanup cannot: cleanups came with Go 1.24.
func blockInCleanup() bool { return false }
