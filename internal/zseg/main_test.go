package zseg

import (
	"testing"

	"github.com/stackdump/stackdump/leakcheck"
)

func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}
