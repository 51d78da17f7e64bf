package ptrace

import (
	"errors"
	"time"
)

// Thread is one thread of the target as it was stopped: its id and the
// registers a traceback starts from.
type Thread struct {
	TID int
	// PC, SP and FP are the program counter, stack pointer and frame
	// pointer (amd64 RBP, arm64 X29); LR is arm64's link register (X30),
	// 0 on amd64.
	PC, SP, FP, LR uint64
	// TLS is the thread pointer: amd64 fs_base, arm64 tpidr_el0.
	TLS uint64
}

// Options configure a Stopper.
type Options struct {
	// MaxStop is the longest the target may stay stopped: when Resume has
	// not come by then, the Stopper resumes the target itself and Resume
	// reports ErrStopExpired. 0: DefaultMaxStop.
	MaxStop time.Duration
	// StopTimeout bounds the wait for every thread to stop (a thread in
	// an uninterruptible sleep stops only when it leaves it, one in a
	// stopped process only when continued): past it Stop resumes the
	// threads it stopped and fails. 0: DefaultStopTimeout.
	StopTimeout time.Duration
	// ProcRoot is where procfs is mounted; "" is /proc.
	ProcRoot string
}

// Defaults of Options.
const (
	DefaultMaxStop     = time.Second
	DefaultStopTimeout = 100 * time.Millisecond
)

func (o Options) withDefaults() Options {
	if o.MaxStop <= 0 {
		o.MaxStop = DefaultMaxStop
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	if o.ProcRoot == "" {
		o.ProcRoot = "/proc"
	}
	return o
}

// StopStats says what the last stop cost the target, by the Stopper's
// clock: from the first thread's interrupt to the last thread's release.
type StopStats struct {
	// Stopped is when the first thread was interrupted, Resumed when the
	// last was released (zero while stopped).
	Stopped, Resumed time.Time
	// Threads is how many threads were stopped; Rounds how many listings
	// of /proc/PID/task it took until one held no new thread.
	Threads, Rounds int
	// Expired: the target was resumed by Options.MaxStop or the
	// context, before Resume was called.
	Expired bool
}

// Duration is how long the target was stopped.
func (s StopStats) Duration() time.Duration {
	if s.Resumed.IsZero() || s.Stopped.IsZero() {
		return 0
	}
	return s.Resumed.Sub(s.Stopped)
}

// ErrStopExpired is returned by Resume when the Stopper had resumed the
// target already: the stop outlasted Options.MaxStop, or its context
// ended. Whatever was read from the target after that moment was read
// while it ran.
var ErrStopExpired = errors.New("the target was resumed before the read ended")

// ErrExited is returned when the target process no longer exists.
var ErrExited = errors.New("the process has exited")
