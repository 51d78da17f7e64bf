package leakcheck

import (
	"fmt"
	"io"
	"os"
)

// TestingT is what VerifyNone reports to: goleak's TestingT, the one
// method of testing.TB it needs. *testing.T, *testing.B, *testing.F,
// GinkgoT(), gocheck's *check.C and hand-written fakes are TestingTs.
type TestingT interface {
	Error(args ...interface{})
}

// helper is the testing.TB method VerifyNone calls when t has it.
type helper interface {
	Helper()
}

// VerifyNone fails t (t.Error) when goroutines are left over, as Find
// finds them: every goroutine of the process that no Option ignores,
// as goleak's VerifyNone, in a subtest as well as in a top-level test.
// The goleak idiom for a subtest of a test that keeps goroutines of its
// own running is
//
//	t.Run("name", func(t *testing.T) {
//		defer leakcheck.VerifyNone(t, leakcheck.IgnoreCurrent())
//		…
//	})
//
// (the deferred call's arguments, so the snapshot, are taken when the
// defer statement runs). OnlyOwnGoroutines narrows the check to the
// goroutines the caller started, at the cost of the leaks it documents.
//
// t needs only Error; Helper is called when t has it (and does not panic,
// as the promoted method of a nil embedded testing.TB does). Call
// VerifyNone deferred at the top of the test, on the test's goroutine.
// With RunOnFailure it reports goleak's error for that option.
func VerifyNone(t TestingT, opts ...Option) {
	if h, ok := t.(helper); ok && helperWorks(h) {
		h.Helper() // here, so that VerifyNone is the helper
	}
	o := buildOptions(opts)
	cleanup := o.cleanup
	o.cleanup = nil
	err := o.refuse()
	if err == nil {
		err = find(o)
	}
	if err != nil {
		t.Error(err)
	}
	if cleanup != nil {
		cleanup(0)
	}
}

// helperWorks calls h.Helper and reports whether it returned: a fake that
// embeds a nil testing.TB has a Helper that panics.
func helperWorks(h helper) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	h.Helper()
	return true
}

// TestingM is what VerifyTestMain runs: *testing.M, as in goleak.
type TestingM interface {
	Run() int
}

// Where VerifyTestMain exits and writes; tests replace them. stderr is
// the standard error as it is when the package is initialised, as
// goleak's _osStderr is: the testing package points os.Stderr at
// os.Stdout under `go test -json` (-test.v=test2json) before the tests
// run, and the report must still go to file descriptor 2, where goleak's
// goes and where a test that redirects it around VerifyTestMain looks.
var (
	osExit           = os.Exit
	stderr io.Writer = os.Stderr
)

// The lines VerifyTestMain writes before the report, goleak's words (CI
// log scrapers and tests match them).
const (
	mainFailedPrefix   = "goleak: Errors on successful test run: "
	mainFailedPrefixRF = "goleak: Errors on unsuccessful test run: "
)

// VerifyTestMain runs the tests (m.Run) and, when they passed, fails the
// run with exit code 1 if goroutines are left over, writing
// "goleak: Errors on successful test run: " and the report to stderr, as
// goleak does:
//
//	func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
//
// With RunOnFailure it also looks after failed tests, writing
// "goleak: Errors on unsuccessful test run: " and the report, and keeps
// their exit code. It exits the process (os.Exit) unless Cleanup is given,
// which is called with the exit code instead.
func VerifyTestMain(m TestingM, opts ...Option) {
	code := m.Run()
	o := buildOptions(opts)
	cleanup := o.cleanup
	o.cleanup = nil
	if cleanup == nil {
		cleanup = osExit
	}
	if code == 0 || o.runOnFailure {
		if err := find(o); err != nil {
			prefix := mainFailedPrefix
			if code != 0 {
				prefix = mainFailedPrefixRF
			}
			fmt.Fprintf(stderr, "%s%v\n", prefix, err)
			if code == 0 {
				code = 1
			}
		}
	}
	cleanup(code)
}
