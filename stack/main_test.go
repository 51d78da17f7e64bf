package stack_test

import (
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}
