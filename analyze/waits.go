package analyze

import (
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// waitClass says what a routine waits for, from its state and stack:
// what decides whether waiting with no change across snapshots is idle or
// stuck.
type waitClass int

const (
	// waitNone: not waiting (running, runnable, in a system call, a JVM
	// thread on a CPU).
	waitNone waitClass = iota
	// waitIdle: waiting for the outside world or for time: the network,
	// a timer, a signal, a select (whose cases the traceback does not
	// show: most have a timer or a context), a condition variable of a
	// pool, the runtime's own background work, an intentional block
	// forever (select {}). Idle by any number, unless its group grows.
	waitIdle
	// waitEvent: waiting for another goroutine in memory: a channel
	// operation, a WaitGroup, a semaphore. Idle unless many wait on one
	// object no one else holds.
	waitEvent
	// waitLock: waiting to acquire a lock (sync.Mutex, sync.RWMutex, a
	// file descriptor's lock; a JVM monitor or an ownable synchronizer).
	// A lock wait that lasts across snapshots is stuck.
	waitLock
)

// goWaitClass classifies a goroutine by its state (the runtime's wait
// reason) and, for inputs without states, its innermost frames.
func goWaitClass(state string, frames []*stack.Frame) waitClass {
	switch state {
	case "", "running", "runnable", "syscall", "dead", "copystack", "preempted":
		if state == "" {
			return goWaitClassOfFrames(frames)
		}
		return waitNone
	case "chan receive", "chan send":
		return waitEvent
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock":
		return waitLock
	case "semacquire":
		if kind, _ := lockWait(frames); kind != "" {
			return waitLock
		}
		return waitEvent
	case "sync.WaitGroup.Wait":
		return waitEvent
	}
	if strings.HasPrefix(state, "running") {
		return waitNone
	}
	// IO wait, sleep, select, select (no cases), chan receive (nil
	// chan), sync.Cond.Wait, the runtime's own waits (GC worker (idle),
	// finalizer wait, force gc (idle), timer goroutine (idle), GC sweep
	// wait, …).
	return waitIdle
}

// goWaitClassOfFrames classifies a stateless goroutine (debug=1, pprof)
// by its innermost frames.
func goWaitClassOfFrames(frames []*stack.Frame) waitClass {
	if kind, _ := lockWait(frames); kind != "" {
		return waitLock
	}
	if chanWaitFrames(frames) {
		for _, f := range frames {
			if f.Func == "runtime.selectgo" || f.Func == "runtime.block" {
				return waitIdle
			}
		}
		return waitEvent
	}
	return waitNone
}

// isGoIdleWait reports whether a goroutine's wait is idle by its kind:
// the network, timers, select, conditions, the runtime.
func isGoIdleWait(state string, frames []*stack.Frame) bool {
	return goWaitClass(state, frames) == waitIdle
}

// jvmWaitClass classifies a JVM thread by its state and lock lines:
// BLOCKED on a monitor, or parked acquiring a lock (a lock class's
// synchronizer), waits for a lock; every other state waits for a signal,
// a timer or I/O (a RUNNABLE thread that used no CPU between two dumps
// is in native code: a socket, a poll) and is idle. The lock graph of a
// whole dump refines it (a parked thread whose synchronizer has an
// owner).
func jvmWaitClass(r *stack.Routine) waitClass {
	if strings.HasPrefix(r.State, "BLOCKED") {
		return waitLock
	}
	if r.Values != nil && (strings.HasPrefix(r.State, "WAITING") || strings.HasPrefix(r.State, "TIMED_WAITING")) {
		for _, fv := range r.Values.Frames {
			for _, l := range fv.Locks {
				if l.Kind == stack.LockParked && IsLockClass(l.Class) {
					return waitLock
				}
			}
		}
	}
	return waitIdle
}
