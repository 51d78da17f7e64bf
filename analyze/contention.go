package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// Lock contention: goroutines blocked acquiring a sync.Mutex, a
// sync.RWMutex (for writing or reading), a sync.Once that another
// goroutine is running, a file descriptor's lock (concurrent I/O on one
// file or socket) or a runtime semaphore. A goroutine counts when its
// state is a lock wait ("sync.Mutex.Lock", "sync.RWMutex.Lock",
// "sync.RWMutex.RLock", "semacquire") or, for inputs without states, when
// its innermost frames are in the lock's slow path. WaitGroup and Cond
// waiters ("sync.WaitGroup.Wait", "sync.Cond.Wait", and the "semacquire"
// of WaitGroup.Wait before Go 1.24) wait for an event, not a lock, and do
// not count.
//
// Contended goroutines are grouped by the code that waits, named by the
// one rule of every group (dedupe.PlaceOf: the program's frame that
// called Lock, past the platform's), and by the kind of lock.

// Lock kinds of a ContentionSite.
const (
	LockMutex     = "sync.Mutex"
	LockRWMutex   = "sync.RWMutex"
	LockRWMutexR  = "sync.RWMutex (read)"
	LockOnce      = "sync.Once"
	LockFD        = "fd lock"
	LockSemaphore = "semaphore"
)

// ContentionSite is a place where goroutines wait for a lock.
type ContentionSite struct {
	// Frame is the code that waits, named as every group is
	// (dedupe.PlaceOf).
	Frame FrameRef `json:"frame"`
	// Lock is the kind of lock: "sync.Mutex", "sync.RWMutex",
	// "sync.RWMutex (read)", "sync.Once", "fd lock" or "semaphore".
	Lock  string `json:"lock"`
	Count int64  `json:"count"`
	// WaitMax is the longest wait there, in minutes.
	WaitMax int     `json:"wait_max"`
	Groups  int     `json:"groups"`
	IDs     []int64 `json:"ids,omitempty"`
}

// contention returns the n sites with the most waiting goroutines, and
// how many goroutines wait for locks in all.
func contention(groups []*stack.Group, n int) ([]ContentionSite, int64) {
	type siteKey struct {
		frame FrameRef
		lock  string
	}
	sites := make(map[siteKey]*ContentionSite)
	var order []*ContentionSite
	var total int64
	for _, g := range groups {
		if g.Sample == nil {
			continue
		}
		kind, waiter := lockWait(g.Sample.Frames())
		count := lockWaiters(g, kind)
		if count == 0 {
			continue
		}
		if kind == "" {
			kind = lockOfState(dominantLockState(g))
		}
		k := siteKey{lock: kind}
		switch place := dedupe.NameFrame(g.Sample.Stack); {
		case place != nil && waiter != nil:
			// Named by the one rule of every group: the program's code
			// that waits, past the platform's.
			k.frame = *frameRef(place)
		default:
			k.frame = FrameRef{Func: "(no frame outside the runtime)"}
		}
		site := sites[k]
		if site == nil {
			site = &ContentionSite{Frame: k.frame, Lock: kind}
			sites[k] = site
			order = append(order, site)
		}
		site.Count += count
		site.Groups++
		site.WaitMax = max(site.WaitMax, g.WaitMax)
		for _, id := range g.IDs {
			site.IDs = keepSmallest(site.IDs, id, maxRowIDs)
		}
		total += count
	}
	slices.SortStableFunc(order, func(a, b *ContentionSite) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Frame.Func, b.Frame.Func), strings.Compare(a.Lock, b.Lock))
	})
	out := make([]ContentionSite, 0, min(n, len(order)))
	for _, s := range order[:min(n, len(order))] {
		out = append(out, *s)
	}
	return out, total
}

// lockWaiters counts g's members waiting for a lock of kind (as read from
// the stack; "" when the stack shows no lock).
func lockWaiters(g *stack.Group, kind string) int64 {
	if len(g.States) == 0 {
		if kind != "" {
			return g.Count
		}
		return 0
	}
	var n int64
	for s, c := range g.States {
		switch s {
		case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock":
			n += c
		case "semacquire":
			// Also WaitGroup.Wait before Go 1.24: only a lock when the
			// stack says so.
			if kind != "" {
				n += c
			}
		}
	}
	return n
}

// dominantLockState is g's most common lock-wait state.
func dominantLockState(g *stack.Group) string {
	best, n := "", int64(0)
	for s, c := range g.States {
		if lockOfState(s) != "" && (c > n || c == n && s < best) {
			best, n = s, c
		}
	}
	return best
}

func lockOfState(state string) string {
	switch state {
	case "sync.Mutex.Lock":
		return LockMutex
	case "sync.RWMutex.Lock":
		return LockRWMutex
	case "sync.RWMutex.RLock":
		return LockRWMutexR
	case "semacquire":
		return LockSemaphore
	}
	return ""
}

// lockWait reads a stack from the innermost frame: past the runtime, the
// frames of the sync packages (or of internal/poll's fd lock) say which
// lock it waits for, and the first frame past them is the waiter. The
// kind is "" when the stack shows no lock, and the waiter nil for WaitGroup
// and Cond waits.
func lockWait(frames []*stack.Frame) (kind string, waiter *stack.Frame) {
	i := 0
	for i < len(frames) && frames[i].IsRuntime() {
		i++
	}
	for ; i < len(frames); i++ {
		f := frames[i]
		k, inLock := lockFrame(f)
		if !inLock {
			break
		}
		switch {
		case k == "none":
			return "", nil
		case k != "" && (kind == "" || kind == LockSemaphore || k == LockOnce || k == LockRWMutex && kind == LockMutex):
			// A writer of an RWMutex waits in the slow path of its
			// mutex: the RWMutex is the lock.
			kind = k
		}
	}
	if i == len(frames) {
		return kind, nil
	}
	return kind, frames[i]
}

// lockFrame says whether f is part of a lock's slow path, and which lock
// it shows: "" for a frame that shows none by itself, "none" for frames
// that wait for an event rather than a lock.
func lockFrame(f *stack.Frame) (kind string, inLock bool) {
	pkg := f.Package()
	switch pkg {
	case "sync", "internal/sync":
	case "internal/poll":
		if strings.HasPrefix(f.Func, "internal/poll.(*fdMutex).") {
			return LockFD, true
		}
		if strings.HasPrefix(f.Func, "internal/poll.runtime_Semacquire") {
			return LockSemaphore, true
		}
		if strings.HasPrefix(f.Func, "internal/poll.(*FD).") {
			return "", true
		}
		return "", false
	default:
		return "", false
	}
	recv, name := f.Receiver(), f.Name()
	switch {
	case recv == "Mutex":
		return LockMutex, true
	case recv == "RWMutex" && (name == "RLock" || name == "rUnlockSlow"):
		return LockRWMutexR, true
	case recv == "RWMutex":
		return LockRWMutex, true
	case recv == "Once" || recv == "OnceFunc" || strings.HasPrefix(name, "OnceValue") || strings.HasPrefix(name, "OnceFunc"):
		return LockOnce, true
	case recv == "WaitGroup" || recv == "Cond":
		return "none", true
	case strings.HasPrefix(name, "runtime_Semacquire"):
		return LockSemaphore, true
	}
	return "", true
}
