package leakcheck

import "testing"

// TestMain checks this package's own tests with the package.
func TestMain(m *testing.M) {
	VerifyTestMain(m)
}
