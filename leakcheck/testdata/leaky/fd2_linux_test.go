package leaky

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

// verifyWithFD2 runs VerifyTestMain with file descriptor 2 redirected into
// the file path, as a test harness that captures a test binary's standard
// error does, and puts it back before exiting.
func verifyWithFD2(m *testing.M, path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	saved, err := syscall.Dup(2)
	if err == nil {
		err = syscall.Dup3(int(f.Fd()), 2, 0)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	leakcheck.VerifyTestMain(m, leakcheck.Cleanup(func(code int) {
		syscall.Dup3(saved, 2, 0)
		f.Close()
		os.Exit(code)
	}))
}
