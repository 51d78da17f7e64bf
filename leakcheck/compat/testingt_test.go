package compat

// Item 2 of issue 25: VerifyNone takes goleak's TestingT, any value with
// Error(...interface{}), and calls Helper only when the value has it.

import (
	"fmt"
	"strings"
	"testing"
)

// testing.TB is a TestingT, as goleak's own tests check.
var _ = TestingT(testing.TB(nil))

// errorOnly has Error alone: GinkgoT(), gocheck's *check.C and
// hand-written fakes need no more.
type errorOnly struct{ errs []string }

func (e *errorOnly) Error(args ...interface{}) { e.errs = append(e.errs, fmt.Sprint(args...)) }

// withHelper has Error and Helper, and counts the Helper calls.
type withHelper struct {
	errorOnly
	helpers int
}

func (w *withHelper) Helper() { w.helpers++ }

// nilTB embeds a nil testing.TB: its promoted Helper, Name, Cleanup, …
// panic when called.
type nilTB struct {
	testing.TB
	errorOnly
}

func (n *nilTB) Error(args ...interface{}) { n.errorOnly.Error(args...) }

func TestTestingTErrorOnly(t *testing.T) {
	e := &errorOnly{}
	VerifyNone(e)
	if len(e.errs) != 0 {
		t.Fatalf("%s: a clean check reported: %q", impl, e.errs)
	}
	b := startBlocked(t)
	VerifyNone(e, fast())
	b.unblock()
	if len(e.errs) != 1 || !strings.HasPrefix(e.errs[0], "found unexpected goroutines:") || !strings.Contains(e.errs[0], "compat.(*blocked).wait") {
		t.Errorf("%s: want one report of the blocked goroutine: %q", impl, e.errs)
	}
}

func TestTestingTHelper(t *testing.T) {
	w := &withHelper{}
	VerifyNone(w)
	if w.helpers == 0 || len(w.errs) != 0 {
		t.Errorf("%s: Helper called %d times, reports %q; want Helper called and nothing reported", impl, w.helpers, w.errs)
	}
}

func TestTestingTNilEmbeddedTB(t *testing.T) {
	b := startBlocked(t)
	defer b.unblock()
	n := &nilTB{}
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		VerifyNone(n, fast())
	}()
	if panicsOnNilTB {
		// goleak calls the promoted Helper of the nil testing.TB.
		if panicked == nil {
			t.Errorf("%s: expected to panic on a fake embedding a nil testing.TB", impl)
		}
		return
	}
	if panicked != nil {
		t.Fatalf("%s: VerifyNone panicked on a fake embedding a nil testing.TB: %v", impl, panicked)
	}
	if len(n.errs) != 1 || !strings.Contains(n.errs[0], "compat.(*blocked).wait") {
		t.Errorf("%s: want the blocked goroutine reported: %q", impl, n.errs)
	}
}
