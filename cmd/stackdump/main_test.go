package main

import (
	"os"
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

// runMainEnv makes the test binary run the command itself, with its
// arguments: tests start it as a child process to kill it or to watch
// its exit status.
const runMainEnv = "STACKDUMP_RUN_MAIN"

// TestMain fails the command's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	leakcheck.VerifyTestMain(m)
}
