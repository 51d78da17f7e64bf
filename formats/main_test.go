package formats

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// reader or writer that leaves a decompressor or pump running is a leak.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
