package analyze

import (
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestContentionOfService(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	want := ContentionSite{Frame: FrameRef{Func: "app.(*Cache).Get", File: "/app/cache.go", Line: 17}, Lock: LockMutex, Count: 30, WaitMax: 1, Groups: 1, IDs: []int64{200, 201, 202, 203, 204}}
	if s.ContentionTotal != 30 || len(s.Contention) != 1 || !equalSite(s.Contention[0], want) {
		t.Errorf("contention %d: %+v", s.ContentionTotal, s.Contention)
	}
}

func equalSite(a, b ContentionSite) bool {
	ids := slices.Equal(a.IDs, b.IDs)
	a.IDs, b.IDs = nil, nil
	return ids && a.Frame == b.Frame && a.Lock == b.Lock && a.Count == b.Count && a.WaitMax == b.WaitMax && a.Groups == b.Groups
}

// Stacks as Go 1.20–1.26 print them; each row of want is "count lock
// waiter".
func TestContentionKinds(t *testing.T) {
	const (
		semaMutex = "sync.runtime_SemacquireMutex /go/src/runtime/sema.go:95"
		lockSlow  = "sync.(*Mutex).lockSlow /go/src/sync/mutex.go:173"
		lock      = "sync.(*Mutex).Lock /go/src/sync/mutex.go:92"
	)
	d := dumpOf(t, stack.KindGoTraceback, // The same waiter reached by two stacks: one site.
		g{n: 7, id: 10, state: "sync.Mutex.Lock", wait: 2, frames: []string{gopark, semacq, semaMutex, lockSlow, lock, "app.(*DB).Query /app/db.go:50", "app.a /app/a.go:1"}},
		g{n: 3, id: 20, state: "sync.Mutex.Lock", wait: 9, frames: []string{gopark, semacq, semaMutex, lockSlow, lock, "app.(*DB).Query /app/db.go:50", "app.b /app/b.go:1"}},
		// Go 1.24+: the mutex lives in internal/sync.
		g{n: 4, id: 30, state: "sync.Mutex.Lock", frames: []string{gopark, semacq, "internal/sync.runtime_SemacquireMutex /go/src/runtime/sema.go:95",
			"internal/sync.(*Mutex).lockSlow /go/src/internal/sync/mutex.go:149", "internal/sync.(*Mutex).Lock /go/src/internal/sync/mutex.go:70",
			"sync.(*Mutex).Lock /go/src/sync/mutex.go:46", "app.(*Stats).Add /app/stats.go:12"}},
		g{n: 6, id: 40, state: "sync.RWMutex.RLock", frames: []string{gopark, semacq, "sync.runtime_SemacquireRWMutexR /go/src/runtime/sema.go:100",
			"sync.(*RWMutex).RLock /go/src/sync/rwmutex.go:74", "app.(*Config).Get /app/config.go:8"}},
		g{n: 1, id: 50, state: "sync.RWMutex.Lock", frames: []string{gopark, semacq, "sync.runtime_SemacquireRWMutex /go/src/runtime/sema.go:105",
			"sync.(*RWMutex).Lock /go/src/sync/rwmutex.go:153", "app.(*Config).Set /app/config.go:20"}},
		// Before Go 1.24 a WaitGroup waiter said "semacquire": not a lock.
		g{n: 9, id: 60, state: "semacquire", frames: []string{gopark, semacq, "sync.runtime_Semacquire /go/src/runtime/sema.go:71",
			"sync.(*WaitGroup).Wait /go/src/sync/waitgroup.go:118", "app.batch /app/batch.go:20"}},
		g{n: 2, id: 70, state: "sync.Cond.Wait", frames: []string{gopark, "sync.runtime_notifyListWait /go/src/runtime/sema.go:587",
			"sync.(*Cond).Wait /go/src/sync/cond.go:71", "app.queue /app/q.go:3"}},
		// Once.Do waits on the Once's mutex while another goroutine runs f.
		g{n: 5, id: 80, state: "sync.Mutex.Lock", frames: []string{gopark, semacq, semaMutex, lockSlow, lock,
			"sync.(*Once).doSlow /go/src/sync/once.go:70", "sync.(*Once).Do /go/src/sync/once.go:61", "app.client /app/client.go:9"}},
		// Concurrent writes to one socket wait on its fd lock.
		g{n: 2, id: 90, state: "semacquire", frames: []string{gopark, semacq, "internal/poll.runtime_Semacquire /go/src/runtime/sema.go:76",
			"internal/poll.(*fdMutex).rwlock /go/src/internal/poll/fd_mutex.go:154", "internal/poll.(*FD).writeLock /go/src/internal/poll/fd_mutex.go:239",
			"internal/poll.(*FD).Write /go/src/internal/poll/fd_unix.go:370", "net.(*netFD).Write /go/src/net/fd_posix.go:96", "app.send /app/send.go:4"}},
		// Mutex slow path but already woken: runnable is not waiting.
		g{n: 4, id: 100, state: "runnable", frames: []string{lockSlow, lock, "app.(*DB).Query /app/db.go:50", "app.c /app/c.go:1"}},
	)
	s := summarize(d, Options{Top: 20})
	var got []string
	for _, c := range s.Contention {
		got = append(got, itoa(c.Count)+" "+c.Lock+" "+c.Frame.Func+" "+minutes(c.WaitMax)+" "+itoa(int64(c.Groups)))
	}
	want := []string{
		"10 sync.Mutex app.(*DB).Query 9m 2",
		"6 sync.RWMutex (read) app.(*Config).Get 0m 1",
		"5 sync.Once app.client 0m 1",
		"4 sync.Mutex app.(*Stats).Add 0m 1",
		"2 fd lock app.send 0m 1",
		"1 sync.RWMutex app.(*Config).Set 0m 1",
	}
	if s.ContentionTotal != 28 || !slices.Equal(got, want) {
		t.Errorf("contention %d\n got %q\nwant %q", s.ContentionTotal, got, want)
	}
	if ids := s.Contention[0].IDs; !slices.Equal(ids, []int64{10, 11, 12, 13, 14}) {
		t.Errorf("ids %v", ids)
	}
}

// debug=1 and pprof carry no states: the stack alone says it.
func TestContentionWithoutStates(t *testing.T) {
	d := dumpOf(t, stack.KindGoPprof, g{count: 40, frames: []string{gopark, semacq, "sync.runtime_SemacquireMutex /go/src/runtime/sema.go:95", "sync.(*Mutex).Lock /go/src/sync/mutex.go:92", "app.hot /app/hot.go:3"}},
		g{count: 12, frames: []string{gopark, semacq, "sync.runtime_Semacquire /go/src/runtime/sema.go:71", "sync.(*WaitGroup).Wait /go/src/sync/waitgroup.go:118", "app.batch /app/batch.go:20"}},
		g{count: 9, frames: []string{"sync.(*Pool).Get /go/src/sync/pool.go:151", "app.buf /app/buf.go:1"}},
	)
	s := summarize(d, Options{})
	if s.ContentionTotal != 40 || len(s.Contention) != 1 || s.Contention[0].Frame.Func != "app.hot" {
		t.Errorf("contention %d: %+v", s.ContentionTotal, s.Contention)
	}
}

func TestLockWaitOfOddStacks(t *testing.T) {
	tab := stack.NewTable()
	frames := func(fs ...string) []*stack.Frame {
		var out []*stack.Frame
		for _, f := range fs {
			out = append(out, tab.Frame(parseFrame(t, f)))
		}
		return out
	}
	for _, tc := range []struct {
		frames       []*stack.Frame
		kind, waiter string
	}{
		{nil, "", ""},
		{frames(gopark), "", ""},
		{frames(gopark, "sync.(*Mutex).Lock /s.go:1"), LockMutex, ""},
		{frames("sync.(*Mutex).Lock /s.go:1", "main.main /m.go:1"), LockMutex, "main.main"},
		{frames("sync.OnceFunc.func1 /s.go:1", "main.f /m.go:1"), LockOnce, "main.f"},
		{frames(gopark, "main.main /m.go:1"), "", "main.main"},
	} {
		kind, w := lockWait(tc.frames)
		waiter := ""
		if w != nil {
			waiter = w.Func
		}
		if kind != tc.kind || waiter != tc.waiter {
			t.Errorf("lockWait(%d frames) = %q, %q; want %q, %q", len(tc.frames), kind, waiter, tc.kind, tc.waiter)
		}
	}
}
