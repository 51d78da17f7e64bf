package dedupe

import (
	"fmt"
	"math/rand/v2"

	"github.com/stackdump/stackdump/stack"
)

// codePath is one place goroutines block at: what a group should be at
// ByStack. Frames are innermost first.
type codePath struct {
	frames  []sourceFrame
	creator sourceFrame
}

type sourceFrame struct {
	fn, file string
	line     int
}

// genPaths returns k distinct code paths, each parked in the runtime under
// a few frames of its own and started by a go statement in main.main.
// shift moves every non-runtime line, as a rebuilt binary would.
func genPaths(k, shift int) []codePath {
	paths := make([]codePath, k)
	for i := range paths {
		paths[i] = codePath{
			frames: []sourceFrame{
				{"runtime.gopark", "/usr/local/go/src/runtime/proc.go", 435},
				{"runtime.chanrecv", "/usr/local/go/src/runtime/chan.go", 664},
				{fmt.Sprintf("example.com/app/pool.(*Pool).wait%d", i%4), "/src/app/pool/pool.go", 40 + i%4 + shift},
				{fmt.Sprintf("example.com/app.handler%d", i), "/src/app/handlers.go", 100 + 10*i + shift},
				{"example.com/app.serve", "/src/app/serve.go", 20 + shift},
				{"runtime.goexit", "/usr/local/go/src/runtime/asm_amd64.s", 1700},
			},
			creator: sourceFrame{"example.com/app.main", "/src/app/main.go", 30 + i + shift},
		}
	}
	return paths
}

// gen builds routines on paths into a Table, the way a reader would:
// interned frames and stacks, with pc offsets, arguments and states that
// vary between routines of the same path.
type gen struct {
	t   *stack.Table
	rnd *rand.Rand
}

func newGen(seed uint64) *gen {
	return &gen{t: stack.NewTable(), rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

var genStates = []string{"chan receive", "select", "IO wait", "semacquire"}

// routine returns a routine on path p with goroutine id id, a random
// state, random arguments and one of four pc offsets per frame.
func (g *gen) routine(p codePath, id int64) *stack.Routine {
	frames := make([]*stack.Frame, len(p.frames))
	values := make([]stack.FrameValue, len(p.frames))
	for i, sf := range p.frames {
		frames[i] = g.t.Frame(stack.Frame{
			Func: sf.fn, File: sf.file, Line: sf.line,
			Offset: uint64(0x10 + g.rnd.IntN(4)), HasOffset: true,
		})
		values[i].Args = fmt.Sprintf("0x%x, 0x%x?", g.rnd.Uint32(), g.rnd.IntN(3))
	}
	creator := g.t.Frame(stack.Frame{Func: p.creator.fn, File: p.creator.file, Line: p.creator.line, Offset: 0x3c, HasOffset: true})
	return &stack.Routine{
		ID:          id,
		Count:       1,
		State:       genStates[g.rnd.IntN(len(genStates))],
		WaitMinutes: g.rnd.IntN(5),
		ParentID:    1,
		CreatedBy:   creator,
		Stack:       g.t.Stack(frames, stack.Elision{}),
		Values:      g.t.Values(values),
	}
}

// dump returns n routines spread at random over paths, and how many went
// to each path.
func (g *gen) dump(paths []codePath, n int) (*stack.Dump, []int64) {
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	perPath := make([]int64, len(paths))
	for i := range n {
		k := g.rnd.IntN(len(paths))
		perPath[k]++
		d.Routines = append(d.Routines, g.routine(paths[k], int64(i+1)))
		d.Total++
	}
	return d, perPath
}

// frame and stack build hand-made stacks in tests.
func frame(t *stack.Table, fn, file string, line int) *stack.Frame {
	return t.Frame(stack.Frame{Func: fn, File: file, Line: line})
}

func stackOf(t *stack.Table, frames ...*stack.Frame) *stack.Stack {
	return t.Stack(frames, stack.Elision{})
}
