package remote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stackdump/stackdump/dumper"
)

// ErrNotJVM is wrapped by the error a JVM capture returns, before any tool
// runs, when the process is not a HotSpot JVM the current user can attach to:
// not a JVM, or a process of another user (notAttachableError says which).
var ErrNotJVM = errors.New("not a Java virtual machine")

// notAttachableError is ErrNotJVM for a process of another user: whether
// it is a JVM is not looked at, and the message does not say it is none.
type notAttachableError struct{ pid, uid, me int }

func (e notAttachableError) Error() string {
	return fmt.Sprintf("PID %d runs as uid %d, and a JVM admits an attach only from its own user or root (stackdump runs as uid %d): run stackdump as that user; no signal was sent", e.pid, e.uid, e.me)
}

func (e notAttachableError) Is(target error) bool { return target == ErrNotJVM }

// ErrNoLeakProfile is dumper.ErrNoLeakProfile, the module's one error for
// a leak capture of a runtime without the goroutine leak profile: here a
// ModeLeak capture whose target has none (404: Go older than 1.27; a gops
// agent or a JVM, which serve none). errors.Is matches it by either name.
var ErrNoLeakProfile = dumper.ErrNoLeakProfile

// ErrRedirectLoop is returned when a target redirects more than 10 times;
// like a 4xx answer it is not retried.
var ErrRedirectLoop = errors.New("remote: too many redirects")

// ErrTooLarge is returned when a body exceeds Options.MaxBytes.
var ErrTooLarge = errors.New("remote: dump exceeds the size limit")

// ErrTimeout is matched (errors.Is) by the error of a request that got no
// answer within Options.Timeout, which bounds the whole capture.
var ErrTimeout = errors.New("remote: no answer within the capture's timeout")

// ErrNoTrace is matched by the error of a ModeTrace capture of a
// net/http/pprof target that serves no execution trace (404 from
// /debug/pprof/trace): another mode, or mounting pprof.Trace, takes it.
var ErrNoTrace = errors.New("remote: the target serves no execution trace")

// ErrPauseBudget is matched by the error of a full capture bounded by
// Options.MaxPause that could take nothing within the bound: the
// goroutines could not be counted to predict the traceback's pause, and
// the execution-trace snapshot taken instead failed. A MaxPause of 0
// takes the traceback unpredicted.
var ErrPauseBudget = errors.New("remote: no capture within the pause budget")

// ErrModeNotServed is matched by the error of a capture in a mode its
// target does not serve: a pid: target read from its memory is ModeFull
// alone. (ModeLeak of a target without the leak profile is
// ErrNoLeakProfile.)
var ErrModeNotServed = errors.New("remote: the target does not serve this mode")

// sentinelError is an error with a message of its own that matches the
// sentinel is (errors.Is) and wraps err.
type sentinelError struct {
	msg string
	is  error
	err error
}

func (e *sentinelError) Error() string        { return e.msg }
func (e *sentinelError) Unwrap() error        { return e.err }
func (e *sentinelError) Is(target error) bool { return target == e.is }

// noLeakProfileError is a ModeLeak capture of a target that is not asked
// over HTTP (a gops agent, a JVM): it is ErrNoLeakProfile, with a message
// that names the target's kind instead of a Go version.
type noLeakProfileError struct{ target Target }

func (e noLeakProfileError) Error() string {
	if e.target.Kind == TargetGops {
		return fmt.Sprintf("mode leak: a gops agent serves no goroutine leak profile (nothing was sent to %s); capture the program's net/http/pprof or stackdump's endpoint", strings.TrimPrefix(e.target.String(), "gops://"))
	}
	return fmt.Sprintf("mode leak: a JVM thread dump marks no thread leaked (nothing was sent to process %d)", e.target.PID)
}

func (e noLeakProfileError) Is(target error) bool { return target == ErrNoLeakProfile }
