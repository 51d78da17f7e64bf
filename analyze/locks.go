package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/stack"
)

// LockReport is what [Locks] finds in a dump.
type LockReport struct {
	// Locks lists every identifiable lock some routine holds or waits for,
	// in order of first appearance.
	Locks []*Lock
	// Blockers are the locks routines are blocked on, most blocked
	// routines first (ties in order of appearance).
	Blockers []*Lock
	// Deadlocks are the cycles of the wait-for graph.
	Deadlocks []Deadlock
	// Reported is the JVM's own deadlock report, read from Dump.Preamble;
	// empty when the dump has none.
	Reported []ReportedDeadlock
	// ReportedCount is N of the JVM's "Found N deadlocks." line; 0 when absent.
	ReportedCount int
}

// Lock is one monitor or java.util.concurrent synchronizer of a dump and
// the routines around it.
type Lock struct {
	// Addr and Class identify the lock as the dump prints it:
	// "0x000000069e01ac30" and "java.lang.Object", or "@4554617c" and
	// "java.lang.Object" for an identity string.
	Addr, Class string
	// Owner is the routine holding the lock; nil when no routine of the
	// dump is known to.
	Owner *stack.Routine
	// OwnerFrom says how Owner was found.
	OwnerFrom OwnerSource
	// Blocked are the routines blocked acquiring the lock: BLOCKED
	// entering the monitor, or parked acquiring a lock (a synchronizer
	// with an owner, or of a lock class: ReentrantLock's and
	// ReentrantReadWriteLock's Sync). This is what "blocked" means
	// wherever stackdump counts threads blocked on a lock.
	Blocked []*stack.Routine
	// Parked are the routines parked on it waiting for a signal, not for
	// the lock: a Condition, a latch, a queue, a future (no owner, not a
	// lock class). They block no one and are not blocked on a lock.
	Parked []*stack.Routine
	// Waiting are the routines in Object.wait() on the monitor: they
	// released it and wait for a notify (also a thread still WAITING whose
	// stack says "waiting to re-lock in wait()", as JDK 11 prints it).
	Waiting []*stack.Routine

	parked []*stack.Routine // parked on it, before Blocked and Parked are told apart
}

// IsLockClass reports whether class is a lock's synchronizer, on which a
// parked thread waits to acquire the lock: ReentrantLock's and
// ReentrantReadWriteLock's Sync classes (their FairSync and NonfairSync),
// and the JDK's other lock classes named *Lock$*Sync.
func IsLockClass(class string) bool {
	outer, inner, ok := strings.Cut(class, "$")
	return ok && strings.HasSuffix(outer, "Lock") && strings.HasSuffix(inner, "Sync")
}

// String returns the lock as jstack prints it: "<0x…> (a java.lang.Object)".
func (l *Lock) String() string {
	if strings.HasPrefix(l.Addr, "@") {
		return "<" + l.Class + l.Addr + ">"
	}
	return "<" + l.Addr + "> (a " + l.Class + ")"
}

// OwnerSource says how a lock's owner was found.
type OwnerSource string

// Owner sources.
const (
	// OwnerFromDump: a "locked" line, an ownable synchronizer, or a JSON
	// parkBlocker owner.
	OwnerFromDump OwnerSource = "dump"
	// OwnerFromJVMReport: the JVM's deadlock report names the holder
	// (dumps taken without -l list no ownable synchronizers).
	OwnerFromJVMReport OwnerSource = "jvm-report"
)

// Deadlock is a cycle of the wait-for graph: Routines[i] waits for
// Locks[i], which Routines[(i+1)%len] holds.
type Deadlock struct {
	Routines []*stack.Routine
	Locks    []*Lock
}

// Locks rebuilds lock owners and waiters from the routines of d (read with
// [formats.ReadAll]), finds deadlocks and ranks blockers. Routines without
// lock lines, such as goroutines, contribute nothing. The package doc
// describes the rules.
func Locks(d *stack.Dump) *LockReport {
	a := &lockAnalysis{byKey: make(map[string]*Lock), waitsFor: make(map[*stack.Routine]*Lock)}
	rep := &LockReport{}
	rep.Reported, rep.ReportedCount = parseReported(d.Preamble)
	for _, r := range d.Routines {
		a.routine(r)
	}
	a.ownersFromReport(rep.Reported, d.Routines)
	for _, lk := range a.order {
		// Parked acquiring a lock, or waiting for a signal.
		if lk.Owner != nil || IsLockClass(lk.Class) {
			lk.Blocked = append(lk.Blocked, lk.parked...)
		} else {
			lk.Parked = lk.parked
		}
		lk.parked = nil
	}
	rep.Locks = a.order
	rep.Deadlocks = a.cycles(d.Routines)
	rep.Blockers = blockers(a.order)
	return rep
}

// lockAnalysis is the state of one Locks call.
type lockAnalysis struct {
	byKey map[string]*Lock
	order []*Lock
	// waitsFor is the lock each blocked routine waits for: its wait-for edge.
	waitsFor map[*stack.Routine]*Lock
}

// lockKey identifies a lock; "" when it cannot be (no address, as for
// "<owner is scalar replaced>").
func lockKey(l stack.Lock) string {
	switch {
	case l.Addr == "":
		return ""
	case strings.HasPrefix(l.Addr, "@"):
		return l.Class + l.Addr
	}
	return l.Addr
}

func (a *lockAnalysis) lock(l stack.Lock) *Lock {
	key := lockKey(l)
	if key == "" {
		return nil
	}
	lk, ok := a.byKey[key]
	if !ok {
		lk = &Lock{Addr: l.Addr, Class: l.Class}
		a.byKey[key] = lk
		a.order = append(a.order, lk)
	}
	return lk
}

// routine records one routine's relations to locks.
func (a *lockAnalysis) routine(r *stack.Routine) {
	var released []string // monitors it waits on or waits to re-enter
	if r.Values != nil {
		for _, fv := range r.Values.Frames {
			for _, l := range fv.Locks {
				if l.Kind == stack.LockWaitOn || l.Kind == stack.LockWaitEnter {
					released = append(released, lockKey(l))
				}
			}
		}
		for _, fv := range r.Values.Frames {
			for _, l := range fv.Locks {
				lk := a.lock(l)
				if lk == nil {
					continue
				}
				kind := l.Kind
				if kind == stack.LockWaitEnter && isJVMWaiting(r.State) {
					// "waiting to re-lock in wait()" under Object.wait of
					// a thread still WAITING (JDK 11 prints it where it
					// printed "locked"): in wait(), not blocked.
					kind = stack.LockWaitOn
				}
				switch kind {
				case stack.LockHeld:
					if !slices.Contains(released, lockKey(l)) {
						a.own(lk, r, OwnerFromDump)
					}
				case stack.LockWaitEnter:
					if !slices.Contains(lk.Blocked, r) {
						lk.Blocked = append(lk.Blocked, r)
					}
					if a.waitsFor[r] == nil {
						a.waitsFor[r] = lk
					}
				case stack.LockParked:
					if !slices.Contains(lk.parked, r) {
						lk.parked = append(lk.parked, r)
					}
					if a.waitsFor[r] == nil {
						a.waitsFor[r] = lk
					}
				case stack.LockWaitOn:
					if !slices.Contains(lk.Waiting, r) {
						lk.Waiting = append(lk.Waiting, r)
					}
				}
			}
		}
	}
	if r.Thread != nil {
		for _, l := range r.Thread.Synchronizers {
			if lk := a.lock(l); lk != nil {
				a.own(lk, r, OwnerFromDump)
			}
		}
	}
}

// own sets a lock's owner unless it has one.
func (a *lockAnalysis) own(lk *Lock, r *stack.Routine, from OwnerSource) {
	if lk.Owner == nil {
		lk.Owner, lk.OwnerFrom = r, from
	}
}

// ownersFromReport takes the holders the JVM names in its deadlock report
// for locks whose owner the stacks do not show. Thread names need not be
// unique, so the holder is the routine of that name that waits for the
// lock the report says it waits for.
func (a *lockAnalysis) ownersFromReport(reported []ReportedDeadlock, routines []*stack.Routine) {
	for _, dl := range reported {
		for _, t := range dl.Threads {
			lk := a.byKey[t.Addr]
			if lk == nil || lk.Owner != nil || t.HeldBy == "" {
				continue
			}
			var holderWaits string
			for _, h := range dl.Threads {
				if h.Name == t.HeldBy {
					holderWaits = h.Addr
				}
			}
			var match, byName []*stack.Routine
			for _, r := range routines {
				if r.Name != t.HeldBy {
					continue
				}
				byName = append(byName, r)
				if w := a.waitsFor[r]; w != nil && holderWaits != "" && w.Addr == holderWaits {
					match = append(match, r)
				}
			}
			switch {
			case len(match) == 1:
				a.own(lk, match[0], OwnerFromJVMReport)
			case len(match) == 0 && len(byName) == 1:
				a.own(lk, byName[0], OwnerFromJVMReport)
			}
		}
	}
}

// cycles finds the cycles of the wait-for graph. Each routine waits for
// at most one lock, so the graph is functional: following edges from each
// routine in dump order meets every cycle exactly once.
func (a *lockAnalysis) cycles(routines []*stack.Routine) []Deadlock {
	index := make(map[*stack.Routine]int, len(routines))
	for i, r := range routines {
		index[r] = i
	}
	next := func(r *stack.Routine) (*stack.Routine, *Lock) {
		lk := a.waitsFor[r]
		if lk == nil || lk.Owner == nil {
			return nil, nil
		}
		return lk.Owner, lk
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[*stack.Routine]int)
	var out []Deadlock
	var path []*stack.Routine
	for _, start := range routines {
		path = path[:0]
		r := start
		for r != nil && state[r] == unseen {
			state[r] = onPath
			path = append(path, r)
			r, _ = next(r)
		}
		if r != nil && state[r] == onPath {
			at := slices.Index(path, r)
			out = append(out, a.deadlock(path[at:], index, next))
		}
		for _, p := range path {
			state[p] = done
		}
	}
	return out
}

// deadlock builds a cycle's report, rotated to start at the routine that
// comes first in the dump.
func (a *lockAnalysis) deadlock(cycle []*stack.Routine, index map[*stack.Routine]int, next func(*stack.Routine) (*stack.Routine, *Lock)) Deadlock {
	first := 0
	for i, r := range cycle {
		if index[r] < index[cycle[first]] {
			first = i
		}
	}
	dl := Deadlock{}
	for i := range cycle {
		r := cycle[(first+i)%len(cycle)]
		_, lk := next(r)
		dl.Routines = append(dl.Routines, r)
		dl.Locks = append(dl.Locks, lk)
	}
	return dl
}

// blockers returns the locks routines are blocked on (Lock.Blocked: a
// monitor they wait to enter, a lock they are parked acquiring), most
// blocked routines first, then in order of appearance.
func blockers(locks []*Lock) []*Lock {
	var out []*Lock
	for _, lk := range locks {
		if len(lk.Blocked) > 0 {
			out = append(out, lk)
		}
	}
	slices.SortStableFunc(out, func(x, y *Lock) int { return cmp.Compare(len(y.Blocked), len(x.Blocked)) })
	return out
}

// isJVMWaiting reports whether a JVM thread state is WAITING or
// TIMED_WAITING (not BLOCKED, not RUNNABLE).
func isJVMWaiting(state string) bool {
	return strings.HasPrefix(state, "WAITING") || strings.HasPrefix(state, "TIMED_WAITING")
}
