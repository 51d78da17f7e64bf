package leakcheck

import (
	"strings"
	"time"

	"github.com/stackdump/stackdump/stack"
)

// An Option changes how Find, VerifyNone and VerifyTestMain look for
// leftover goroutines.
type Option interface {
	apply(*options)
}

// Defaults, the same as goleak's: 20 retries, sleeping 1µs, 2µs, 4µs, …
// up to 100ms between them (about half a second in all).
const (
	DefaultMaxRetries = 20
	DefaultMaxSleep   = 100 * time.Millisecond
)

// options is what the Options build.
type options struct {
	ignoreIDs  []*idSet                    // IgnoreCurrent snapshots
	filters    []func(*stack.Routine) bool // true: not a leak
	maxRetries int
	maxSleep   time.Duration
	cleanup    func(exitCode int)
	// runOnFailure: VerifyTestMain checks after failed tests too.
	runOnFailure bool
	// ownOnly: count only the goroutines whose creator chain leads to the
	// goroutine running the check (OnlyOwnGoroutines; see scope.go).
	ownOnly bool
	// fullStacks: the report shows every frame of each group.
	fullStacks bool
	// goleakReport: the report is goleak v1.3.0's, goroutine by goroutine.
	goleakReport bool
	// scope, when not nil, limits the check to the goroutines of one
	// goroutine's creator chains (set from ownOnly by find).
	scope *scope
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

func buildOptions(opts []Option) *options {
	o := &options{maxRetries: DefaultMaxRetries, maxSleep: DefaultMaxSleep}
	o.filters = append(o.filters, isTestingWait, isTestRunner, isSignalLoop, isCgoSyscall, isTraceReader)
	for _, opt := range opts {
		if opt != nil {
			opt.apply(o)
		}
	}
	return o
}

// ignored reports whether a parsed leftover is not a leak.
func (o *options) ignored(r *stack.Routine) bool {
	for _, f := range o.filters {
		if f(r) {
			return true
		}
	}
	return false
}

// ignoredID reports whether an IgnoreCurrent snapshot holds id.
func (o *options) ignoredID(id int64) bool {
	for _, s := range o.ignoreIDs {
		if s.has(id) {
			return true
		}
	}
	return false
}

// IgnoreCurrent ignores every goroutine that exists when the option is
// created (goleak's IgnoreCurrent). The snapshot reads only the ids in the
// goroutine headers of one runtime.Stack pass; nothing is parsed.
func IgnoreCurrent() Option {
	s := snapshotIDs()
	return optionFunc(func(o *options) { o.ignoreIDs = append(o.ignoreIDs, s) })
}

// IgnoreTopFunction ignores goroutines whose top frame is f, a fully
// qualified function name ("internal/poll.runtime_pollWait"), as goleak's
// does: the top frame is the first one printed. runtime.Stack prints at
// traceback level 1 whatever GOTRACEBACK says, so the runtime's own
// frames (runtime.gopark and the like) are never the top frame, at
// GOTRACEBACK=system either.
func IgnoreTopFunction(f string) Option {
	return addFilter(func(r *stack.Routine) bool {
		frames := r.Frames()
		return len(frames) > 0 && frames[0].Func == f
	})
}

// IgnoreAnyFunction ignores goroutines with f anywhere in their stack (the
// creator does not count: see IgnoreCreatedBy).
func IgnoreAnyFunction(f string) Option {
	return addFilter(func(r *stack.Routine) bool { return hasFunc(r, f) })
}

// IgnoreCreatedBy ignores goroutines started by a go statement in f, a
// fully qualified function name (the `created by f` line), as goleak's
// IgnoreCreatedBy does (goleak's main branch; no goleak release has it
// yet: v1.3.0 is the latest).
func IgnoreCreatedBy(f string) Option {
	return addFilter(func(r *stack.Routine) bool {
		return r.CreatedBy != nil && r.CreatedBy.Func == f
	})
}

// MaxRetries sets how many times a check with leftovers looks again before
// it fails (default 20; 0 or less: it looks once). A proven leak (Go
// 1.27+) fails at once whatever n.
func MaxRetries(n int) Option {
	return optionFunc(func(o *options) { o.maxRetries = max(n, 0) })
}

// MaxSleep caps the sleep between retries (default 100ms; 0 or less: the
// retries do not sleep); sleeps start at 1µs and double.
func MaxSleep(d time.Duration) Option {
	return optionFunc(func(o *options) { o.maxSleep = max(d, 0) })
}

// MaxRetryAttempts is MaxRetries.
//
// Deprecated: no goleak release has this name: it was added to goleak's
// development tree after v1.2.1 (uber-go/goleak#94) and reverted before
// v1.3.0 (#116). Use MaxRetries.
func MaxRetryAttempts(n int) Option { return MaxRetries(n) }

// MaxSleepInterval is MaxSleep.
//
// Deprecated: like MaxRetryAttempts, a name goleak had only between
// v1.2.1 and v1.3.0 and never released. Use MaxSleep.
func MaxSleepInterval(d time.Duration) Option { return MaxSleep(d) }

// Cleanup runs f after the check: VerifyTestMain calls it with the exit
// code instead of os.Exit, VerifyNone with 0. Find refuses it (goleak's
// Cleanup).
func Cleanup(f func(exitCode int)) Option {
	return optionFunc(func(o *options) { o.cleanup = f })
}

// RunOnFailure makes VerifyTestMain look for leftover goroutines after
// failed tests too; by default it looks only when the tests passed. The
// exit code of failed tests is kept; leftovers after passing tests make
// it 1, as without the option. Find and VerifyNone refuse it (goleak's
// RunOnFailure, on goleak's main branch; no release has it yet).
func RunOnFailure() Option {
	return optionFunc(func(o *options) { o.runOnFailure = true })
}

// OnlyOwnGoroutines narrows the check to the goroutines whose chain of
// creators ("created by F in goroutine N"), followed through goroutines
// still alive, leads to the goroutine running the check: the test's (or
// subtest's) own goroutines, so that parallel siblings and what the parent
// test keeps running are not reported. goleak has no such option.
//
// It can miss leaks the default check (and goleak) reports, so use it only
// where the whole-process check cannot work: a goroutine whose creator has
// exited is left out (an HTTP client's keep-alive connection goroutines are
// started by a dial goroutine that has ended), and so is one that another
// goroutine started on the test's behalf (a worker started by the parent
// test, a pool, a server's accept loop). VerifyTestMain, which checks the
// whole process after every test, still sees them.
func OnlyOwnGoroutines() Option {
	return optionFunc(func(o *options) { o.ownOnly = true })
}

// FullStacks makes the report show every frame of each group, as goleak
// shows whole stacks; by default a group shows its top five frames.
func FullStacks() Option {
	return optionFunc(func(o *options) { o.fullStacks = true })
}

// GoleakReport makes the report goleak v1.3.0's, for log scrapers and
// tests that match it: after the first line, every leftover goroutine
// on its own, in the order the runtime printed them, as
//
//	[Goroutine 8 in state chan send, with example.com/m.send on top of the stack:
//	example.com/m.send(…)
//		/src/m/leak.go:12 +0x2a
//	created by example.com/m.TestLeak in goroutine 7
//		/src/m/leak_test.go:20 +0x5c
//	 Goroutine 9 in state …]
//
// (the goroutines of goleak's []Stack formatted with %s), whole stacks
// included. The counted groups (Error.Proven, Error.Other) are still
// there for a program; only the text changes.
func GoleakReport() Option {
	return optionFunc(func(o *options) { o.goleakReport = true })
}

func addFilter(f func(*stack.Routine) bool) Option {
	return optionFunc(func(o *options) { o.filters = append(o.filters, f) })
}

// hasFunc reports whether f is one of r's frames.
func hasFunc(r *stack.Routine, f string) bool {
	for _, fr := range r.Frames() {
		if fr.Func == f {
			return true
		}
	}
	return false
}

// topFrame is the first frame that is not the runtime's, or nil.
func topFrame(r *stack.Routine) *stack.Frame {
	for _, f := range r.Frames() {
		if !f.IsRuntime() {
			return f
		}
	}
	return nil
}

// The default filters, goleak's: goroutines the testing package, os/signal,
// cgo and runtime/trace keep in the background.

// isTestingWait: the testing package's own goroutines waiting for tests
// (the main goroutine in t.Run, parallel tests waiting in t.Parallel,
// a test waiting in tRunner's deferred func for its parallel subtests or
// the top-level parallel tests, fuzzing).
func isTestingWait(r *stack.Routine) bool {
	top := topFrame(r)
	if top == nil {
		return false
	}
	switch top.Func {
	case "testing.RunTests", "testing.runTests", "testing.(*T).Run", "testing.(*T).Parallel",
		"testing.tRunner.func1", "testing.runFuzzing", "testing.runFuzzTests", "testing.(*F).Fuzz":
		return strings.HasPrefix(r.State, "chan receive")
	}
	return false
}

// isTestRunner: another test running at the same time (t.Parallel), the
// goroutine testing.(*T).Run started for it. It is no leftover of the
// test being checked; its own check, and VerifyTestMain after every test
// ended, look at what it leaves.
func isTestRunner(r *stack.Routine) bool {
	return r.CreatedBy != nil && r.CreatedBy.Func == "testing.(*T).Run" && hasFunc(r, "testing.tRunner")
}

// isSignalLoop: os/signal's goroutine, and the runtime's when signals are
// handled.
func isSignalLoop(r *stack.Routine) bool {
	if top := topFrame(r); top != nil && (top.Func == "os/signal.signal_recv" || top.Func == "os/signal.loop") {
		return true
	}
	return hasFunc(r, "runtime.ensureSigM")
}

// isCgoSyscall: a goroutine cgo keeps in a system call (golang/go#16714).
func isCgoSyscall(r *stack.Routine) bool {
	return strings.HasPrefix(r.State, "syscall") && hasFunc(r, "runtime.goexit")
}

// isTraceReader: runtime/trace's reader while a trace is on.
func isTraceReader(r *stack.Routine) bool { return hasFunc(r, "runtime.ReadTrace") }
