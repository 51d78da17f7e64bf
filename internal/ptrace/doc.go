// Package ptrace stops every thread of another process for a moment, reads
// their registers and lets them go, without a signal and without ever
// leaving the process stopped.
//
// A [Stopper] seizes each thread with PTRACE_SEIZE (no options: no
// PTRACE_O_EXITKILL, no SIGSTOP), stops it with PTRACE_INTERRUPT and, on
// Resume, releases it with PTRACE_DETACH, handing back any signal that
// arrived during the stop. The threads are listed from /proc/PID/task again
// after each round of stops until a listing holds only stopped threads, so
// a thread born during the stop is caught: a thread can only be created by
// a running one, and a clone is complete before its caller stops.
//
// The attachment belongs to one OS thread of the caller (ptrace requires
// it): every request runs on a goroutine locked to that thread. When that
// thread or the whole calling process dies — SIGKILL included — the kernel
// detaches the target's threads and they run on, since a seize neither
// sends a signal nor kills the tracee with its tracer. While stopped, the
// Stopper also resumes the target by itself when its context ends (the
// CLI's SIGINT and SIGTERM) or when the stop outlasts Options.MaxStop.
//
// [Check] refuses, before anything is attached, what must not or cannot be
// attached: the caller itself, a thread id instead of a process id, an
// exited process, a process already traced, another user's process without
// CAP_SYS_PTRACE, and what the Yama LSM's ptrace_scope forbids, each with
// what to do instead. [Memory] reads the target's memory with
// process_vm_readv, which needs no stop.
//
// The package is Linux-only (amd64 and arm64); elsewhere its functions
// return errors.ErrUnsupported.
package ptrace
