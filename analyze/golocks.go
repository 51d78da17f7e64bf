package analyze

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// GoLock is a lock goroutines wait for, identified by its address in the
// traceback's arguments (objects.go), with its probable holder.
type GoLock struct {
	// Addr is the lock's address ("0xc000010030"); Kind the lock
	// ("sync.Mutex", "sync.RWMutex", "sync.RWMutex (read)", "fd lock").
	Addr string `json:"addr"`
	Kind string `json:"kind"`
	// Waiters counts the goroutines waiting for it; IDs are the first.
	Waiters int64   `json:"waiters"`
	IDs     []int64 `json:"ids,omitempty"`
	// WaitMax is their longest wait, in minutes.
	WaitMax int `json:"wait_max"`
	// Frame is where they wait (the place of the first of them).
	Frame *FrameRef `json:"frame,omitempty"`
	// Holder is the probable holder: the one goroutine that carries the
	// address in its arguments outside a wait for it. Carriers counts
	// every such goroutine (0: the holder is not in sight).
	Holder   *RoutineRef `json:"holder,omitempty"`
	Carriers int64       `json:"carriers"`
	// HolderEvidence says how the holder is known, or why it is not.
	HolderEvidence string `json:"holder_evidence"`
	// Deadlocked is set when the lock is part of a deadlock cycle.
	Deadlocked bool `json:"deadlocked,omitempty"`

	addr   uint64
	places map[string]bool // the functions its waiters wait in
}

// goDeadlock is a cycle of goroutines, each waiting for a lock the next
// one probably holds.
type goDeadlock struct {
	steps []goStep
}

type goStep struct {
	waiter lockWaiter
	// via is the frame in which the next goroutine carries the lock's
	// address.
	via *stack.Frame
}

// goLocks builds the lock table of a Go dump: every lock with waiters of
// known address, most waiters first, with its probable holder (who names
// a goroutine by its id: its state and place), and the deadlock cycles
// among them.
func (x *objectIndex) goLocks(who func(id int64) *RoutineRef) ([]GoLock, []goDeadlock) {
	var order []*GoLock
	byAddr := map[uint64]*GoLock{}
	for addr, w := range x.waits {
		if w.class != waitLock {
			continue
		}
		l := &GoLock{Addr: addrText(addr), Kind: w.kind, addr: addr, Frame: frameRef(w.place),
			Waiters: w.n, IDs: w.ids, WaitMax: w.waitMax, places: map[string]bool{}}
		for _, f := range w.at {
			l.places[funcOf(f)] = true
		}
		c := x.carriers[addr]
		l.Carriers = int64(c.n)
		switch {
		case x.full:
			l.HolderEvidence = "not looked for: the dump has too many addresses to index"
		case c.n == 0:
			l.HolderEvidence = "holder not in the dump: no goroutine outside its waiters carries its address (it may have exited holding it, or hold it without passing it as an argument)"
		case c.n == 1:
			l.Holder = who(c.first.id)
			l.HolderEvidence = fmt.Sprintf("goroutine %d carries its address in %s and does not wait for it: the probable holder", c.first.id, shortFunc(funcOf(c.first.frame)))
		default:
			l.HolderEvidence = fmt.Sprintf("%s carry its address outside a wait for it (goroutine %d in %s and %d more): one of them probably holds it",
				words.Count(int64(c.n), "goroutine"), c.first.id, shortFunc(funcOf(c.first.frame)), c.n-1)
		}
		byAddr[addr] = l
		order = append(order, l)
	}
	cycles := x.cycles()
	for _, c := range cycles {
		for _, s := range c.steps {
			if l := byAddr[s.waiter.addr]; l != nil {
				l.Deadlocked = true
			}
		}
	}
	slices.SortFunc(order, func(a, b *GoLock) int {
		return cmp.Or(cmpBool(b.Deadlocked, a.Deadlocked), cmp.Compare(b.Waiters, a.Waiters), cmp.Compare(a.addr, b.addr))
	})
	out := make([]GoLock, len(order))
	for i, l := range order {
		out[i] = *l
	}
	return out, cycles
}

func funcOf(f *stack.Frame) string {
	if f == nil {
		return "-"
	}
	return f.Func
}

// maxCycleWaiters bounds the lock waiters searched for cycles.
const maxCycleWaiters = 10_000

// cycles finds the cycles of the wait-for graph of the lock waiters: a
// waiter points to each goroutine that carries the address of the lock
// it waits for and is itself waiting for a lock. Each cycle is reported
// once, starting with its goroutine of the lowest id.
func (x *objectIndex) cycles() []goDeadlock {
	if len(x.lockWaiters) > maxCycleWaiters || x.full {
		return nil // too many to search, or holders not indexed
	}
	waiter := make(map[int64]lockWaiter, len(x.lockWaiters))
	for _, w := range x.lockWaiters {
		if w.id != 0 {
			waiter[w.id] = w
		}
	}
	type edge struct {
		to  int64
		via *stack.Frame
	}
	next := func(w lockWaiter) []edge {
		h := x.lockCarriers[w.addr]
		if _, ok := waiter[h.id]; h.id == 0 || h.id == w.id || !ok {
			return nil
		}
		return []edge{{h.id, h.frame}}
	}
	seen := map[string]bool{}
	var out []goDeadlock
	var path []goStep
	onPath := map[int64]int{}
	done := map[int64]bool{} // explored: every cycle through it was found
	var walk func(id int64, depth int)
	walk = func(id int64, depth int) {
		if depth > 16 || done[id] {
			return
		}
		w := waiter[id]
		onPath[id] = len(path)
		path = append(path, goStep{waiter: w})
		for _, e := range next(w) {
			path[len(path)-1].via = e.via
			if at, ok := onPath[e.to]; ok {
				cycle := slices.Clone(path[at:])
				if key := cycleKey(cycle); !seen[key] {
					seen[key] = true
					out = append(out, goDeadlock{steps: rotateLowest(cycle)})
				}
				continue
			}
			walk(e.to, depth+1)
		}
		path = path[:len(path)-1]
		delete(onPath, id)
		done[id] = true
	}
	for _, w := range x.lockWaiters {
		if w.id != 0 && len(out) < 100 {
			walk(w.id, 0)
		}
	}
	return out
}

func cycleKey(c []goStep) string {
	ids := make([]int64, len(c))
	for i, s := range c {
		ids[i] = s.waiter.id
	}
	slices.Sort(ids)
	return fmt.Sprint(ids)
}

func rotateLowest(c []goStep) []goStep {
	low := 0
	for i, s := range c {
		if s.waiter.id < c[low].waiter.id {
			low = i
		}
	}
	return append(slices.Clone(c[low:]), c[:low]...)
}
