package remote

import (
	"errors"
	"fmt"

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

// noLeakProfileError is a ModeLeak capture of a target that is not asked
// over HTTP (a gops agent, a JVM): it is ErrNoLeakProfile, with a message
// that names the target's kind instead of a Go version.
type noLeakProfileError struct{ target Target }

func (e noLeakProfileError) Error() string {
	if e.target.Kind == TargetGops {
		return fmt.Sprintf("--mode leak: a gops agent serves no goroutine leak profile (nothing was sent to %s); capture the program's net/http/pprof or stackdump's endpoint", e.target.Addr)
	}
	return fmt.Sprintf("--mode leak: a JVM thread dump marks no thread leaked (nothing was sent to process %d)", e.target.PID)
}

func (e noLeakProfileError) Is(target error) bool { return target == ErrNoLeakProfile }
