//go:build !goleak

package compat

// Options of goleak's main branch (no release yet, so they cannot run
// against goleak here: the module proxy serves v1.3.0 at most). The
// expectations are main's documented meaning, checked by hand against
// main at 2b7fd8a (2025-12-10); docs/leaks.md says where main differs.

import (
	"os"
	"strings"
	"testing"
)

func TestIgnoreCreatedBy(t *testing.T) {
	release := make(chan struct{})
	go nested(release)
	defer close(release)
	waitFor(t, "compat.nestedInner", "chan receive")
	if leftovers(IgnoreCreatedBy("github.com/stackdump/stackdump/leakcheck/compat.TestIgnoreCreatedBy")) {
		t.Errorf("%s: IgnoreCreatedBy of the function with the go statement did not ignore it", impl)
	}
	if !leftovers(IgnoreCreatedBy("github.com/stackdump/stackdump/leakcheck/compat.nested")) {
		t.Errorf("%s: IgnoreCreatedBy of a frame ignored it", impl)
	}
}

// TestChildFails fails when run as the "leak-fail" child.
func TestChildFails(t *testing.T) {
	if os.Getenv("COMPAT_CHILD") != "leak-fail" {
		t.Skip("fails only as a child of TestRunOnFailureLine")
	}
	t.Error("failing on purpose")
}

func TestRunOnFailureLine(t *testing.T) {
	out, code := runChild(t, "leak-fail", "^TestChildFails$")
	if code != 1 || !strings.Contains(out, "goleak: Errors on unsuccessful test run: found unexpected goroutines:\n") || !strings.Contains(out, "compat.blockForever") {
		t.Errorf("%s: exit %d, output:\n%s\nwant exit 1 and goleak's line for failed runs", impl, code, out)
	}
	if err := Find(RunOnFailure()); err == nil || err.Error() != "RunOnFailure can only be passed to VerifyTestMain" {
		t.Errorf("%s: Find(RunOnFailure()) = %v, want goleak main's error", impl, err)
	}
}
