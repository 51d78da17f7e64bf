package analyze

// JVMLocks is the lock analysis of a JVM thread dump: its deadlocks and
// the locks that block the most threads, from [Locks].
type JVMLocks struct {
	Deadlocks []JVMDeadlock `json:"deadlocks"`
	// ReportedDeadlocks is how many deadlocks the JVM itself reported
	// ("Found N deadlocks"), -1 when the dump has no such report.
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
