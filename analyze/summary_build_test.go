package analyze

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// g describes hand-made goroutines for tests: n of them (ids from id up)
// in one state, on frames written "func file:line", innermost first.
type g struct {
	n       int
	id      int64
	state   string
	wait    int
	leaked  bool
	locked  bool
	frames  []string
	creator string
	parent  int64 // parent of every one; see parents
	// parents, when > 0, gives each goroutine its own parent, from parent up.
	parents int
	count   int64 // Count per routine (grouped inputs); 0 means 1
}

// dumpOf builds a dump of kind from specs through one Table, as a reader
// would.
func dumpOf(t testing.TB, kind stack.Kind, specs ...g) *stack.Dump {
	t.Helper()
	tab := stack.NewTable()
	d := &stack.Dump{Source: stack.Source{Kind: kind, Runtime: "go1.26.8"}}
	for _, s := range specs {
		frames := make([]*stack.Frame, len(s.frames))
		for i, f := range s.frames {
			frames[i] = tab.Frame(parseFrame(t, f))
		}
		st := tab.Stack(frames, stack.Elision{})
		var creator *stack.Frame
		if s.creator != "" {
			creator = tab.Frame(parseFrame(t, s.creator))
		}
		n := max(s.n, 1)
		for i := range n {
			r := &stack.Routine{
				Count: max(s.count, 1), State: s.state, WaitMinutes: s.wait, Leaked: s.leaked, Locked: s.locked,
				Stack: st, CreatedBy: creator, ParentID: s.parent,
			}
			if s.id != 0 {
				r.ID = s.id + int64(i)
			}
			if s.parents > 0 {
				r.ParentID = s.parent + int64(i%s.parents)
			}
			d.Routines = append(d.Routines, r)
			d.Total += r.Count
		}
	}
	return d
}

// parseFrame reads "func file:line" (file and line optional).
func parseFrame(t testing.TB, s string) stack.Frame {
	fn, loc, ok := strings.Cut(s, " ")
	if !ok {
		return stack.Frame{Func: fn}
	}
	file, line, _ := strings.Cut(loc, ":")
	n, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("frame %q: bad line", s)
	}
	return stack.Frame{Func: fn, File: file, Line: n, HasOffset: true}
}

// summarize groups d by stack and summarises it.
func summarize(d *stack.Dump, opts Options) *Summary {
	return Summarize(d, dedupe.Group(d, dedupe.Options{}), opts)
}

// Frames of the hand-made dumps.
const (
	gopark    = "runtime.gopark /go/src/runtime/proc.go:435"
	chanrecv  = "runtime.chanrecv /go/src/runtime/chan.go:664"
	chanrecv1 = "runtime.chanrecv1 /go/src/runtime/chan.go:506"
	chansend1 = "runtime.chansend1 /go/src/runtime/chan.go:161"
	selectgo  = "runtime.selectgo /go/src/runtime/select.go:351"
	semacq    = "runtime.semacquire1 /go/src/runtime/sema.go:160"
	goexit    = "runtime.goexit /go/src/runtime/asm_amd64.s:1700"
)
