package leakcheck

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// VerifyNone fails t (t.Error) when goroutines are left over, as Find
// finds them. In a subtest (t.Name() has a '/') it checks only the
// goroutines the subtest started, not its parent's (see scope.go), so
// that
//
//	t.Run("name", func(t *testing.T) {
//		defer leakcheck.VerifyNone(t)
//		…
//	})
//
// works inside a test that keeps goroutines of its own running. Call it
// deferred at the top of the test, on the test's goroutine.
func VerifyNone(t testing.TB, opts ...Option) {
	t.Helper()
	o := buildOptions(opts)
	cleanup := o.cleanup
	o.cleanup = nil
	if strings.Contains(t.Name(), "/") {
		o.scope = &scope{root: currentID()}
	}
	if err := find(o); err != nil {
		t.Error(err)
	}
	if cleanup != nil {
		cleanup(0)
	}
}

// TestingM is what VerifyTestMain runs: *testing.M, as in goleak.
type TestingM interface {
	Run() int
}

// Where VerifyTestMain exits and writes; tests replace them.
var (
	osExit           = os.Exit
	stderr io.Writer = os.Stderr
)

// VerifyTestMain runs the tests (m.Run) and, when they passed, fails the
// run with exit code 1 if goroutines are left over:
//
//	func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
//
// It exits the process (os.Exit) unless Cleanup is given.
func VerifyTestMain(m TestingM, opts ...Option) {
	code := m.Run()
	o := buildOptions(opts)
	cleanup := o.cleanup
	o.cleanup = nil
	if cleanup == nil {
		cleanup = osExit
	}
	if code == 0 {
		if err := find(o); err != nil {
			fmt.Fprintf(stderr, "leakcheck: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	cleanup(code)
}
