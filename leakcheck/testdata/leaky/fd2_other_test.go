//go:build !linux

package leaky

import (
	"fmt"
	"os"
	"testing"
)

// verifyWithFD2 is tested on Linux only (dup3).
func verifyWithFD2(*testing.M, string) {
	fmt.Println("file descriptor 2 is redirected on Linux only")
	os.Exit(2)
}
