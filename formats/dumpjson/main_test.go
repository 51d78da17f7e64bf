package dumpjson_test

import (
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// reader or writer that leaves a goroutine running is a leak.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}
