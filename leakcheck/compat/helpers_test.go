package compat

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain checks this package's own tests with the implementation under
// test. COMPAT_CHILD makes the test binary a child for messages_test.go:
// "leak" leaves a goroutine blocked before VerifyTestMain runs; with
// "leak-fail" a test fails too and RunOnFailure is passed.
func TestMain(m *testing.M) {
	switch os.Getenv("COMPAT_CHILD") {
	case "leak":
		go blockForever()
		VerifyTestMain(m)
	case "leak-fail":
		go blockForever()
		VerifyTestMain(m, runOnFailureOrNothing()...)
	default:
		VerifyTestMain(m)
	}
}

var forever = make(chan struct{})

// blockForever is the goroutine the children leak (forever is a global:
// never provable as leaked, so the check retries as goleak does).
func blockForever() { <-forever }

// recorder is a TestingT that records Error instead of failing the test.
// It embeds the real test, so that Name, Helper and the rest are the
// subtest's own, as a check on the real t would see them.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprint(args...))
}

func (r *recorder) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// fast keeps failing checks short where the implementation can.
func fast() Option { return fastSleep(time.Millisecond) }

// waitFor waits until a goroutine whose stack holds fn is in a state
// starting with state: a goroutine just started may still be running on a
// loaded machine. It gives up, failing t, after 10s.
func waitFor(t testing.TB, fn, state string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); ; {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "["+state) && strings.Contains(g, fn) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine in %s blocked in %s", fn, state)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitGone waits until no goroutine's stack holds fn.
func waitGone(t testing.TB, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); strings.Contains(string(buf[:runtime.Stack(buf, true)]), fn); {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines in %s did not end", fn)
		}
		time.Sleep(time.Millisecond)
	}
}

// blocked is a goroutine blocked on a channel until released.
type blocked struct{ release chan struct{} }

func (b *blocked) wait() { <-b.release }

// unblock releases it.
func (b *blocked) unblock() { close(b.release) }

// startBlocked starts a blocked goroutine and waits until it is blocked.
func startBlocked(t testing.TB) *blocked {
	t.Helper()
	b := &blocked{release: make(chan struct{})}
	go b.wait()
	waitFor(t, "compat.(*blocked).wait", "chan receive")
	return b
}
