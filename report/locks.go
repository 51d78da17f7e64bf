package report

import (
	"cmp"
	"slices"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// Caps on a dump's lock analysis in the page.
const (
	// maxLocks is how many locks with waiters the page lists, most
	// blocked first; LocksDoc.More counts the rest.
	maxLocks = 200
	// maxLockThreads is how many blocked or waiting threads a lock lists;
	// the counts say how many there are.
	maxLockThreads = 50
)

// locksDoc is the lock analysis of a JVM dump (analyze.Locks): each
// deadlock cycle, and the locks that threads wait for.
type locksDoc struct {
	// Deadlocks are the cycles of the wait-for graph: Steps[i].Thread
	// waits for Steps[i].Lock, which Steps[i+1].Thread holds (the last
	// step's lock is held by the first step's thread).
	Deadlocks []deadlockDoc `json:"deadlocks"`
	// Reported is how many deadlocks the JVM itself reported ("Found 2
	// deadlocks."); 0 when its report is absent.
	Reported int `json:"reported,omitempty"`
	// Locks are the locks with threads blocked on them or waiting on
	// them (Object.wait), most blocked first; More counts those past
	// maxLocks.
	Locks []lockDoc `json:"locks"`
	More  int       `json:"more,omitempty"`
}

type deadlockDoc struct {
	Steps []deadlockStep `json:"steps"`
}

type deadlockStep struct {
	Thread threadDoc `json:"thread"`
	Lock   string    `json:"lock"` // the lock it waits for
}

type lockDoc struct {
	// Lock is as jstack prints it: "<0x…> (a java.lang.Object)".
	Lock string `json:"lock"`
	// Owner holds it; absent when the dump does not say. OwnerFrom is
	// "jvm-report" when only the JVM's deadlock report names it.
	Owner     *threadDoc `json:"owner,omitempty"`
	OwnerFrom string     `json:"ownerFrom,omitempty"`
	// Blocked wait to acquire it (entering the monitor, or parked
	// acquiring a lock: analyze.Lock.Blocked, the one meaning of
	// "blocked"); Parked are parked on it waiting for a signal (a
	// condition, a latch, a queue: not blocked); Waiting are in
	// Object.wait on it (they released it). Each lists at most
	// maxLockThreads; the counts are whole.
	Blocked      []threadDoc `json:"blocked"`
	BlockedCount int         `json:"blockedCount"`
	Parked       []threadDoc `json:"parked,omitempty"`
	ParkedCount  int         `json:"parkedCount,omitempty"`
	Waiting      []threadDoc `json:"waiting,omitempty"`
	WaitingCount int         `json:"waitingCount,omitempty"`
	// Deadlocked is set when the lock is on a deadlock cycle.
	Deadlocked bool `json:"deadlocked,omitempty"`
}

// threadDoc is a thread of the lock analysis: its name, id, state, the
// frame where it is (an index into frames; analyze.WhereFrame) and the
// index of its group in the dump's groups (-1 when not listed).
type threadDoc struct {
	Name  string `json:"name"`
	ID    int64  `json:"id,omitempty"`
	State string `json:"state,omitempty"`
	Frame *int   `json:"frame,omitempty"`
	Group int    `json:"group"`
}

// lockGroups finds the page's group of a thread: the group listing its
// id, else the group whose key is the thread's key at the grouping
// options.
type lockGroups struct {
	byID  map[int64]int
	byKey map[string]int
	opts  dedupe.Options
}

func newLockGroups(groups []groupDoc, opts dedupe.Options) *lockGroups {
	lg := &lockGroups{byID: make(map[int64]int), byKey: make(map[string]int), opts: opts}
	for gi, g := range groups {
		lg.byKey[g.Key] = gi
		for _, id := range g.IDs {
			if _, dup := lg.byID[id]; !dup && id != 0 {
				lg.byID[id] = gi
			}
		}
	}
	return lg
}

func (lg *lockGroups) of(r *stack.Routine) int {
	if gi, ok := lg.byID[r.ID]; ok && r.ID != 0 {
		return gi
	}
	g := dedupe.NewGrouper(lg.opts)
	g.Add(r)
	if gs := g.Groups(); len(gs) == 1 {
		if gi, ok := lg.byKey[gs[0].Key]; ok {
			return gi
		}
	}
	return -1
}

// buildLocks describes rep for the page; nil when it found no deadlock
// and no lock with waiters.
func buildLocks(tab *docTable, rep *analyze.LockReport, groups []groupDoc, opts dedupe.Options) *locksDoc {
	if rep == nil {
		return nil
	}
	lg := newLockGroups(groups, opts)
	thread := func(r *stack.Routine) threadDoc {
		t := threadDoc{Name: r.Name, ID: r.ID, State: r.State, Group: lg.of(r)}
		if f := analyze.WhereFrame(r.Stack); f != nil {
			fi := tab.frame(f, true)
			t.Frame = &fi
		}
		return t
	}
	threads := func(rs []*stack.Routine) []threadDoc {
		out := []threadDoc{}
		for _, r := range rs[:min(len(rs), maxLockThreads)] {
			out = append(out, thread(r))
		}
		return out
	}
	doc := &locksDoc{Deadlocks: []deadlockDoc{}, Locks: []lockDoc{}, Reported: max(rep.ReportedCount, len(rep.Reported))}
	onCycle := map[*analyze.Lock]bool{}
	for _, dl := range rep.Deadlocks {
		var d deadlockDoc
		for i, r := range dl.Routines {
			step := deadlockStep{Thread: thread(r)}
			if lk := dl.Locks[i]; lk != nil {
				step.Lock = lk.String()
				onCycle[lk] = true
			}
			d.Steps = append(d.Steps, step)
		}
		doc.Deadlocks = append(doc.Deadlocks, d)
	}
	var locks []*analyze.Lock
	for _, lk := range rep.Locks {
		if len(lk.Blocked)+len(lk.Parked)+len(lk.Waiting) > 0 {
			locks = append(locks, lk)
		}
	}
	slices.SortStableFunc(locks, func(a, b *analyze.Lock) int {
		return cmp.Or(cmpTrue(onCycle[a], onCycle[b]), cmp.Compare(len(b.Blocked), len(a.Blocked)), cmp.Compare(len(b.Parked)+len(b.Waiting), len(a.Parked)+len(a.Waiting)))
	})
	doc.More = max(0, len(locks)-maxLocks)
	for _, lk := range locks[:min(len(locks), maxLocks)] {
		l := lockDoc{Lock: lk.String(), Blocked: threads(lk.Blocked), BlockedCount: len(lk.Blocked), WaitingCount: len(lk.Waiting), Deadlocked: onCycle[lk]}
		if len(lk.Waiting) > 0 {
			l.Waiting = threads(lk.Waiting)
		}
		if len(lk.Parked) > 0 {
			l.Parked, l.ParkedCount = threads(lk.Parked), len(lk.Parked)
		}
		if lk.Owner != nil {
			o := thread(lk.Owner)
			l.Owner = &o
			if lk.OwnerFrom != analyze.OwnerFromDump {
				l.OwnerFrom = string(lk.OwnerFrom)
			}
		}
		doc.Locks = append(doc.Locks, l)
	}
	if len(doc.Deadlocks) == 0 && len(doc.Locks) == 0 && doc.Reported == 0 {
		return nil
	}
	return doc
}

// cmpTrue orders true before false.
func cmpTrue(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
