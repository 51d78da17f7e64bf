package compat

// Item 4 of issue 25: the lines CI log scrapers and tests match are
// goleak's: "goleak: Errors on successful test run" from VerifyTestMain,
// and errors that start with "found unexpected goroutines". The children
// are this test binary run again with COMPAT_CHILD set (helpers_test.go).

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runChild runs this test binary with COMPAT_CHILD=mode and -test.run=run;
// it returns the output and the exit code.
func runChild(t *testing.T, mode, run string) (string, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.count=1")
	cmd.Env = append(os.Environ(), "COMPAT_CHILD="+mode)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func TestFindErrorStartsLikeGoleak(t *testing.T) {
	b := startBlocked(t)
	defer b.unblock()
	err := Find(fast())
	if err == nil || !strings.HasPrefix(err.Error(), "found unexpected goroutines:\n") {
		t.Errorf("%s: Find's error does not start with goleak's line: %v", impl, err)
	}
}

func TestVerifyTestMainLine(t *testing.T) {
	out, code := runChild(t, "leak", "^$")
	if code != 1 || !strings.Contains(out, "goleak: Errors on successful test run: found unexpected goroutines:\n") || !strings.Contains(out, "compat.blockForever") {
		t.Errorf("%s: exit %d, output:\n%s\nwant exit 1 and goleak's line", impl, code, out)
	}
	out, code = runChild(t, "", "^$")
	if code != 0 || strings.Contains(out, "goleak:") {
		t.Errorf("%s: a clean run: exit %d, output:\n%s", impl, code, out)
	}
}

// TestChildVerifyNone leaks when run as the "verifynone" child.
func TestChildVerifyNone(t *testing.T) {
	if os.Getenv("COMPAT_CHILD") != "verifynone" {
		t.Skip("leaks only as a child of TestVerifyNoneLine")
	}
	defer VerifyNone(t, fast())
	go blockForever()
}

func TestVerifyNoneLine(t *testing.T) {
	out, code := runChild(t, "verifynone", "^TestChildVerifyNone$")
	if code != 1 || !strings.Contains(out, "--- FAIL: TestChildVerifyNone") || !strings.Contains(out, ": found unexpected goroutines:\n") {
		t.Errorf("%s: exit %d, output:\n%s\nwant the test failed with goleak's line", impl, code, out)
	}
}
