package dumptest

import (
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// ServerDump builds an in-memory dump of n goroutines over a handful of
// stacks, like a server parked in a few places: worker pools, network
// readers, timers. Arguments differ between goroutines (16 variants per
// stack), as pointers do in real dumps.
func ServerDump(n int) *stack.Dump {
	t := stack.NewTable()
	type site struct {
		state string
		funcs []string
	}
	sites := []site{
		{"chan receive", []string{"runtime.gopark", "runtime.chanrecv", "runtime.chanrecv2", "github.com/acme/shop/internal/queue.(*Worker).run", "github.com/acme/shop/internal/queue.(*Pool).Start.func1"}},
		{"IO wait", []string{"internal/poll.runtime_pollWait", "internal/poll.(*pollDesc).wait", "internal/poll.(*pollDesc).waitRead", "internal/poll.(*FD).Read", "net.(*netFD).Read", "net.(*conn).Read", "net/http.(*connReader).Read", "bufio.(*Reader).fill", "bufio.(*Reader).Peek", "net/http.(*conn).serve"}},
		{"select", []string{"runtime.gopark", "runtime.selectgo", "github.com/acme/shop/internal/cache.(*Cache).janitor", "github.com/acme/shop/internal/cache.New.func2"}},
		{"sync.Mutex.Lock", []string{"runtime.gopark", "runtime.goparkunlock", "runtime.semacquire1", "internal/sync.runtime_SemacquireMutex", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", "github.com/acme/shop/internal/store.(*DB).Get", "github.com/acme/shop/internal/api.(*Server).handleOrder", "net/http.HandlerFunc.ServeHTTP", "net/http.(*ServeMux).ServeHTTP", "net/http.serverHandler.ServeHTTP", "net/http.(*conn).serve"}},
		{"sleep", []string{"time.Sleep", "github.com/acme/shop/internal/metrics.(*Reporter).loop"}},
	}
	creator := t.Frame(stack.Frame{Func: "github.com/acme/shop/internal/queue.(*Pool).Start", File: "/home/build/src/github.com/acme/shop/internal/queue/pool.go", Line: 88, Offset: 0x1a5, HasOffset: true})
	type built struct {
		state  string
		stack  *stack.Stack
		values []*stack.FrameValues
	}
	var stacks []built
	for si, s := range sites {
		var frames []*stack.Frame
		for i, fn := range s.funcs {
			frames = append(frames, t.Frame(stack.Frame{
				Func: fn, File: fmt.Sprintf("/home/build/src/github.com/acme/shop/internal/pkg%d/file%d.go", si, i),
				Line: 40 + 7*i, Offset: uint64(0x20 + 0x11*i), HasOffset: true,
			}))
		}
		b := built{state: s.state, stack: t.Stack(frames, stack.Elision{})}
		for v := range 16 {
			vs := make([]stack.FrameValue, len(frames))
			for i := range vs {
				vs[i].Args = fmt.Sprintf("0xc%09x, {0x%x?, 0x%x}, 0x%x", 0x10000+v*0x40+i, v, i, 3*v)
			}
			b.values = append(b.values, t.Values(vs))
		}
		stacks = append(stacks, b)
	}
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback, Runtime: "go1.26.8"}, Total: int64(n)}
	d.Routines = make([]*stack.Routine, n)
	for i := range d.Routines {
		s := stacks[i%len(stacks)]
		r := &stack.Routine{
			ID: int64(i + 1), Count: 1, State: s.state, Stack: s.stack, Values: s.values[(i/len(stacks))%16],
			CreatedBy: creator, ParentID: 1,
		}
		if i%7 == 0 {
			r.WaitMinutes = i % 60
		}
		d.Routines[i] = r
	}
	return d
}
