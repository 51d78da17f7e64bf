package analyze

import (
	"github.com/stackdump/stackdump/stack"
)

// JVMLocks is the lock analysis of a JVM thread dump: its deadlocks and
// the locks that block the most threads, from [Locks].
type JVMLocks struct {
	Deadlocks []JVMDeadlock `json:"deadlocks"`
	// ReportedDeadlocks is how many deadlocks the JVM itself reported
	// ("Found one Java-level deadlock", "Found N deadlocks"); 0 when the
	// dump has no such report.
	ReportedDeadlocks int `json:"reported_deadlocks"`
	// Blockers are the locks with the most blocked threads.
	Blockers []JVMBlocker `json:"blockers"`
}

// JVMDeadlock is a cycle of threads, each waiting for a lock the next one
// holds.
type JVMDeadlock struct {
	Threads []JVMThreadRef `json:"threads"`
}

// JVMThreadRef names a thread and, in a deadlock, the lock it waits for.
type JVMThreadRef struct {
	Name  string    `json:"name"`
	ID    int64     `json:"id,omitempty"`
	State string    `json:"state,omitempty"`
	Frame *FrameRef `json:"frame,omitempty"`
	// WaitsFor is the lock the thread waits for ("<0x…> (a java.lang.Object)").
	WaitsFor string `json:"waits_for,omitempty"`
}

// JVMBlocker is a lock that threads are blocked on, and its owner.
type JVMBlocker struct {
	Lock string `json:"lock"`
	// Owner is the thread holding it; nil when the dump does not say.
	Owner   *JVMThreadRef `json:"owner,omitempty"`
	Blocked int           `json:"blocked"`
	// Waiting counts threads in Object.wait() on it (they block no one).
	Waiting int `json:"waiting"`
}

// holdsLockLines reports whether r has lock lines: a JVM thread that
// holds, waits for or is parked on a lock.
func holdsLockLines(r *stack.Routine) bool {
	if r.Thread != nil && len(r.Thread.Synchronizers) > 0 {
		return true
	}
	if r.Values == nil {
		return false
	}
	for _, fv := range r.Values.Frames {
		if len(fv.Locks) > 0 {
			return true
		}
	}
	return false
}

// LockWatch keeps, while a JVM dump's threads stream by, the threads
// with lock lines (holding, waiting for or parked on a lock, or owning
// synchronizers), so that [Locks] can run once the dump is read without
// keeping the others. Its zero value is ready; it keeps copies, so
// routines read with ReadOptions.ReuseRoutines may be passed as they
// stream.
type LockWatch struct {
	threads []*stack.Routine
}

// Add looks at r, the next routine of the dump.
func (w *LockWatch) Add(r *stack.Routine) {
	if r != nil && r.Thread != nil && holdsLockLines(r) {
		w.threads = append(w.threads, r.Clone())
	}
}

// Report runs [Locks] over the threads kept (over d's own Routines when
// d holds them), with d's preamble for the JVM's deadlock report.
func (w *LockWatch) Report(d *stack.Dump) *LockReport {
	dd := *d
	if len(dd.Routines) == 0 {
		dd.Routines = w.threads
	}
	return Locks(&dd)
}

// jvmLocks keeps the deadlocks of rep and the n blockers with the most
// blocked threads.
func jvmLocks(rep *LockReport, n int) *JVMLocks {
	out := &JVMLocks{
		Deadlocks:         []JVMDeadlock{},
		ReportedDeadlocks: max(rep.ReportedCount, len(rep.Reported)),
		Blockers:          []JVMBlocker{},
	}
	for _, dl := range rep.Deadlocks {
		var cycle JVMDeadlock
		for i, r := range dl.Routines {
			t := threadRef(r)
			if lk := dl.Locks[i]; lk != nil {
				t.WaitsFor = lk.String()
			}
			cycle.Threads = append(cycle.Threads, *t)
		}
		out.Deadlocks = append(out.Deadlocks, cycle)
	}
	for _, lk := range rep.Blockers[:min(n, len(rep.Blockers))] {
		b := JVMBlocker{Lock: lk.String(), Blocked: len(lk.Blocked), Waiting: len(lk.Waiting)}
		if lk.Owner != nil {
			b.Owner = threadRef(lk.Owner)
		}
		out.Blockers = append(out.Blockers, b)
	}
	return out
}

func threadRef(r *stack.Routine) *JVMThreadRef {
	return &JVMThreadRef{Name: r.Name, ID: r.ID, State: r.State, Frame: frameRef(whereFrame(r.Stack))}
}
