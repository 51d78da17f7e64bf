package gotext

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// The tables below are the grammar of a goroutine in Go traceback text:
// every header form × every frame form × every creator form is read, and
// each fragment's expected fields are checked. A header-only field
// expectation is a Routine with only those fields set.

type headerCase struct {
	line string
	want stack.Routine // ID, State, WaitMinutes, Locked, Leaked, Durable, Scan, Bubble, Labels, GP, M, MP, HasGP
}

var grammarHeaders = []headerCase{
	{`goroutine 1 [running]:`, stack.Routine{ID: 1, State: "running"}},
	{`goroutine 27 [IO wait]:`, stack.Routine{ID: 27, State: "IO wait"}},
	{`goroutine 5 [chan receive (nil chan)]:`, stack.Routine{ID: 5, State: "chan receive (nil chan)"}},
	{`goroutine 6 [GC worker (idle)]:`, stack.Routine{ID: 6, State: "GC worker (idle)"}},
	{`goroutine 8 [sync.WaitGroup.Wait]:`, stack.Routine{ID: 8, State: "sync.WaitGroup.Wait"}},
	{`goroutine 2 gp=0xc000006700 m=nil [force gc (idle)]:`, stack.Routine{ID: 2, State: "force gc (idle)", GP: 0xc000006700, M: -1, HasGP: true}},
	{`goroutine 1 gp=0xc0000061c0 m=5 mp=0xc00008b008 [running]:`, stack.Routine{ID: 1, State: "running", GP: 0xc0000061c0, M: 5, MP: 0xc00008b008, HasGP: true}},
	{`goroutine 0 gp=0x6866e0 m=0 mp=0x6874a0 [idle]:`, stack.Routine{ID: 0, State: "idle", GP: 0x6866e0, M: 0, MP: 0x6874a0, HasGP: true}},
	{`goroutine 4 [sleep, 1 minutes]:`, stack.Routine{ID: 4, State: "sleep", WaitMinutes: 1}},
	{`goroutine 16 [chan receive, 1234 minutes]:`, stack.Routine{ID: 16, State: "chan receive", WaitMinutes: 1234}},
	{`goroutine 19 [select (no cases), locked to thread]:`, stack.Routine{ID: 19, State: "select (no cases)", Locked: true}},
	{`goroutine 7 [syscall, 12 minutes, locked to thread]:`, stack.Routine{ID: 7, State: "syscall", WaitMinutes: 12, Locked: true}},
	{`goroutine 19 [chan send (leaked)]:`, stack.Routine{ID: 19, State: "chan send", Leaked: true}},
	{`goroutine 3 [running (scan)]:`, stack.Routine{ID: 3, State: "running", Scan: true}},
	{`goroutine 22 [chan receive (durable), synctest bubble 1]:`, stack.Routine{ID: 22, State: "chan receive", Durable: true, Bubble: 1}},
	{`goroutine 25 [sleep (durable), synctest bubble 12]:`, stack.Routine{ID: 25, State: "sleep", Durable: true, Bubble: 12}},
	{`goroutine 21 [running, synctest bubble 1]:`, stack.Routine{ID: 21, State: "running", Bubble: 1}},
	{`goroutine 9 [select (durable), 3 minutes, locked to thread, synctest bubble 2]:`, stack.Routine{ID: 9, State: "select", Durable: true, WaitMinutes: 3, Locked: true, Bubble: 2}},
	{`goroutine 17 [sleep labels:{"svc": "users", "weird key": "a\"b\nc"}]:`, stack.Routine{ID: 17, State: "sleep", Labels: stack.Labels{{Key: "svc", Value: "users"}, {Key: "weird key", Value: "a\"b\nc"}}}},
	{`goroutine 18 [IO wait, 5 minutes labels:{"k": "]:", "u": "h\u00e9\x41"}]:`, stack.Routine{ID: 18, State: "IO wait", WaitMinutes: 5, Labels: stack.Labels{{Key: "k", Value: "]:"}, {Key: "u", Value: "héA"}}}},
	{`goroutine 33 [sleep] {svc: users, "weird key": "a\"b\nc"}:`, stack.Routine{ID: 33, State: "sleep", Labels: stack.Labels{{Key: "svc", Value: "users"}, {Key: "weird key", Value: "a\"b\nc"}}}},
	{`goroutine 34 [chan receive, 2 minutes] {z: last, "k": "v]: {x}", a.b/c_d: 1}:`, stack.Routine{ID: 34, State: "chan receive", WaitMinutes: 2, Labels: stack.Labels{{Key: "a.b/c_d", Value: "1"}, {Key: "k", Value: "v]: {x}"}, {Key: "z", Value: "last"}}}},
}

type frameCase struct {
	lines string // function line and file line, each ending in "\n"
	want  stack.Frame
	value stack.FrameValue
}

var grammarFrames = []frameCase{
	{"main.doPanic({0x558d80?, 0x0?})\n\t/src/probe/main.go:65 +0x27\n", stack.Frame{Func: "main.doPanic", File: "/src/probe/main.go", Line: 65, Offset: 0x27, HasOffset: true}, stack.FrameValue{Args: "{0x558d80?, 0x0?}"}},
	{"main.inlinee(...)\n\t/src/probe/main.go:55\n", stack.Frame{Func: "main.inlinee", File: "/src/probe/main.go", Line: 55, Inlined: true}, stack.FrameValue{}},
	{"main.structArg({0x0, {0x0, 0x0}, {0x0, 0x0, 0x0}}, {0x1, 0x2, 0x3}, 0x0?, ...)\n\t/src/x.go:1 +0x1\n", stack.Frame{Func: "main.structArg", File: "/src/x.go", Line: 1, Offset: 1, HasOffset: true}, stack.FrameValue{Args: "{0x0, {0x0, 0x0}, {0x0, 0x0, 0x0}}, {0x1, 0x2, 0x3}, 0x0?, ..."}},
	{"main.manyArgs(0x0?, 0x1, _, {...}, ...)\n\t/src/x.go:2 +0x10\n", stack.Frame{Func: "main.manyArgs", File: "/src/x.go", Line: 2, Offset: 0x10, HasOffset: true}, stack.FrameValue{Args: "0x0?, 0x1, _, {...}, ..."}},
	{"runtime.goexit({})\n\t/usr/local/go/src/runtime/asm_amd64.s:1771 +0x1\n", stack.Frame{Func: "runtime.goexit", File: "/usr/local/go/src/runtime/asm_amd64.s", Line: 1771, Offset: 1, HasOffset: true}, stack.FrameValue{Args: "{}"}},
	{"runtime.goexit()\n\t/usr/local/go/src/runtime/asm_amd64.s:1571 +0x1\n", stack.Frame{Func: "runtime.goexit", File: "/usr/local/go/src/runtime/asm_amd64.s", Line: 1571, Offset: 1, HasOffset: true}, stack.FrameValue{}},
	{"main.Generic[...](0x0?, {0x0?, 0x0?})\n\t/src/g.go:9 +0x1e\n", stack.Frame{Func: "main.Generic[...]", File: "/src/g.go", Line: 9, Offset: 0x1e, HasOffset: true}, stack.FrameValue{Args: "0x0?, {0x0?, 0x0?}"}},
	{"main.startAll.func4.1()\n\t/src/probe/main.go:88 +0x1b1\n", stack.Frame{Func: "main.startAll.func4.1", File: "/src/probe/main.go", Line: 88, Offset: 0x1b1, HasOffset: true}, stack.FrameValue{}},
	{"main.glob..func1(0x0?)\n\t/src/probe/main.go:29 +0x1b\n", stack.Frame{Func: "main.glob..func1", File: "/src/probe/main.go", Line: 29, Offset: 0x1b, HasOffset: true}, stack.FrameValue{Args: "0x0?"}},
	{"main.(*T).Method(...)\n\t/src/probe/main.go:26\n", stack.Frame{Func: "main.(*T).Method", File: "/src/probe/main.go", Line: 26, Inlined: true}, stack.FrameValue{}},
	{"panic({0x526b20?, 0x10e1709c42a0?})\n\t/usr/local/go/src/runtime/panic.go:860 +0x13a\n", stack.Frame{Func: "panic", File: "/usr/local/go/src/runtime/panic.go", Line: 860, Offset: 0x13a, HasOffset: true}, stack.FrameValue{Args: "{0x526b20?, 0x10e1709c42a0?}"}},
	{"type:.eq.struct { a int; b string }(0x1, 0x2)\n\t<autogenerated>:1 +0x2f\n", stack.Frame{Func: "type:.eq.struct { a int; b string }", File: "<autogenerated>", Line: 1, Offset: 0x2f, HasOffset: true}, stack.FrameValue{Args: "0x1, 0x2"}},
	{"runtime/pprof.writeGoroutineStacks(0x14e5940, 0xc0000abc50)\n\tC:/Users/felixge/pprof.go:693 +0x9f\n", stack.Frame{Func: "runtime/pprof.writeGoroutineStacks", File: "C:/Users/felixge/pprof.go", Line: 693, Offset: 0x9f, HasOffset: true}, stack.FrameValue{Args: "0x14e5940, 0xc0000abc50"}},
	{"main.spaced()\n\t/Users/John Doe/go/src/x.go:12 +0x1\n", stack.Frame{Func: "main.spaced", File: "/Users/John Doe/go/src/x.go", Line: 12, Offset: 1, HasOffset: true}, stack.FrameValue{}},
	{"main._Cfunc_c_sleep_loop(0xf4240)\n\t_cgo_gotypes.go:56 +0x45\n", stack.Frame{Func: "main._Cfunc_c_sleep_loop", File: "_cgo_gotypes.go", Line: 56, Offset: 0x45, HasOffset: true}, stack.FrameValue{Args: "0xf4240"}},
	{"runtime.unknown()\n\t??:0\n", stack.Frame{Func: "runtime.unknown", File: "??", Line: 0}, stack.FrameValue{}},
	{"panic({0x52e620?, 0x129aca406020?})\n\t/usr/local/go/src/runtime/panic.go:879 +0x16f fp=0x129aca34fe60 sp=0x129aca34fdb0 pc=0x483caf\n", stack.Frame{Func: "panic", File: "/usr/local/go/src/runtime/panic.go", Line: 879, Offset: 0x16f, HasOffset: true}, stack.FrameValue{Args: "{0x52e620?, 0x129aca406020?}", FP: 0x129aca34fe60, SP: 0x129aca34fdb0, PC: 0x483caf}},
	{"runtime.gopark(0x0?)\n\t/usr/local/go/src/runtime/proc.c:1350 +0x89 fp=0x7f42b0016ef0\n", stack.Frame{Func: "runtime.gopark", File: "/usr/local/go/src/runtime/proc.c", Line: 1350, Offset: 0x89, HasOffset: true}, stack.FrameValue{Args: "0x0?", FP: 0x7f42b0016ef0}},
	{"C.sleep_loop\n\tsleep.c:12 pc=0x4a7e0f\n", stack.Frame{Func: "C.sleep_loop", File: "sleep.c", Line: 12, Native: true}, stack.FrameValue{PC: 0x4a7e0f}},
	{"non-Go function\n\tpc=0x4a7e0f\n", stack.Frame{Func: "non-Go function", Native: true}, stack.FrameValue{PC: 0x4a7e0f}},
	{"non-Go function at pc=0x4a7e10\n", stack.Frame{Func: "non-Go function", Native: true}, stack.FrameValue{PC: 0x4a7e10}},
}

type creatorCase struct {
	lines  string
	want   *stack.Frame
	parent int64
}

var grammarCreators = []creatorCase{
	{"", nil, 0},
	{"created by main.startAll\n\t/src/probe/main.go:88 +0x1b1\n", &stack.Frame{Func: "main.startAll", File: "/src/probe/main.go", Line: 88, Offset: 0x1b1, HasOffset: true}, 0},
	{"created by main.spawnChild in goroutine 25\n\t/src/probe/main.go:99 +0x56\n", &stack.Frame{Func: "main.spawnChild", File: "/src/probe/main.go", Line: 99, Offset: 0x56, HasOffset: true}, 25},
	{"created by net/http.(*Server).Serve in goroutine 1\n\tC:/go/src/net/http/server.go:3285 +0x4b4\n", &stack.Frame{Func: "net/http.(*Server).Serve", File: "C:/go/src/net/http/server.go", Line: 3285, Offset: 0x4b4, HasOffset: true}, 1},
	{"created by runtime.gcenable\n\t/usr/local/go/src/runtime/mgc.go:214 +0x66 fp=0x1 sp=0x2 pc=0x3\n", &stack.Frame{Func: "runtime.gcenable", File: "/usr/local/go/src/runtime/mgc.go", Line: 214, Offset: 0x66, HasOffset: true}, 0},
}

// readOne reads input that must hold one dump with no warnings.
func readOne(t *testing.T, input string) *stack.Dump {
	t.Helper()
	dumps := readGoText(t, []byte(input))
	if len(dumps) != 1 {
		t.Fatalf("%d dumps, want 1, from\n%s", len(dumps), input)
	}
	for _, w := range dumps[0].Warnings {
		t.Errorf("warning %v from\n%s", w, input)
	}
	return dumps[0]
}

func headerFields(r *stack.Routine) stack.Routine {
	return stack.Routine{ID: r.ID, State: r.State, WaitMinutes: r.WaitMinutes, Locked: r.Locked, Leaked: r.Leaked,
		Durable: r.Durable, Scan: r.Scan, Bubble: r.Bubble, Labels: r.Labels, GP: r.GP, M: r.M, MP: r.MP, HasGP: r.HasGP}
}

// frameFields returns f's fields without its place in the Table, so that
// it compares with a literal (TestFrameFieldsCopied keeps the list whole).
func frameFields(f *stack.Frame) stack.Frame {
	return stack.Frame{Func: f.Func, File: f.File, Line: f.Line, Offset: f.Offset, HasOffset: f.HasOffset,
		Inlined: f.Inlined, Module: f.Module, Native: f.Native}
}

// TestFrameFieldsCopied fails when stack.Frame gains an exported field
// that frameFields does not copy.
func TestFrameFieldsCopied(t *testing.T) {
	var names []string
	ft := reflect.TypeFor[stack.Frame]()
	for i := range ft.NumField() {
		if f := ft.Field(i); f.IsExported() {
			names = append(names, f.Name)
		}
	}
	if got, want := strings.Join(names, " "), "Func File Line Offset HasOffset Inlined Module Native"; got != want {
		t.Errorf("stack.Frame's exported fields are %q; frameFields copies %q", got, want)
	}
}

func TestGoTextGrammar(t *testing.T) {
	n := 0
	for _, h := range grammarHeaders {
		for _, f := range grammarFrames {
			for _, c := range grammarCreators {
				n++
				input := h.line + "\n" + f.lines + c.lines + "\n"
				d := readOne(t, input)
				if len(d.Routines) != 1 {
					t.Fatalf("%d routines from\n%s", len(d.Routines), input)
				}
				r := d.Routines[0]
				if got := headerFields(r); !reflect.DeepEqual(got, h.want) {
					t.Errorf("header %q:\n got %+v\nwant %+v", h.line, got, h.want)
				}
				if r.Line != 1 || r.Count != 1 || d.Total != 1 {
					t.Errorf("Line=%d Count=%d Total=%d, want 1 1 1", r.Line, r.Count, d.Total)
				}
				if len(r.Stack.Frames) != 1 {
					t.Fatalf("%d frames from\n%s", len(r.Stack.Frames), input)
				}
				if got := frameFields(r.Stack.Frames[0]); got != f.want {
					t.Errorf("frame %q:\n got %+v\nwant %+v", f.lines, got, f.want)
				}
				var gotV stack.FrameValue
				if r.Values != nil {
					gotV = r.Values.Frames[0]
				}
				if !reflect.DeepEqual(gotV, f.value) {
					t.Errorf("values of %q: got %+v, want %+v", f.lines, gotV, f.value)
				}
				switch {
				case c.want == nil && r.CreatedBy != nil:
					t.Errorf("unexpected creator %+v", r.CreatedBy)
				case c.want != nil && (r.CreatedBy == nil || frameFields(r.CreatedBy) != *c.want):
					t.Errorf("creator of %q: got %+v, want %+v", c.lines, r.CreatedBy, c.want)
				}
				if r.ParentID != c.parent {
					t.Errorf("ParentID = %d, want %d", r.ParentID, c.parent)
				}
				if strings.Contains(c.lines, "fp=0x1") && (r.CreatedByValues == nil || !reflect.DeepEqual(*r.CreatedByValues, stack.FrameValue{FP: 1, SP: 2, PC: 3})) {
					t.Errorf("CreatedByValues = %+v", r.CreatedByValues)
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}

func TestIDSet(t *testing.T) {
	var s idSet
	for _, id := range []int64{0, 1, 63, 64, 1000, idSetDense - 1, idSetDense, 1 << 40, -5} {
		if s.has(id) || s.add(id) {
			t.Fatalf("%d reported before it was added", id)
		}
		if !s.has(id) || !s.add(id) {
			t.Fatalf("%d not found after add", id)
		}
	}
	s.clear()
	for _, id := range []int64{0, 1000, 1 << 40} {
		if s.has(id) {
			t.Fatalf("%d still there after clear", id)
		}
	}
}
