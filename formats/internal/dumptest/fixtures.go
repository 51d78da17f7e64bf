package dumptest

import (
	"time"

	"github.com/stackdump/stackdump/stack"
)

// Hand-built models that set every field of the model at least once,
// interned through a Table as a reader would build them.

// Frame interns a Go frame; off < 0 means no +0x offset.
func Frame(t *stack.Table, fn, file string, line int, off int64) *stack.Frame {
	f := stack.Frame{Func: fn, File: file, Line: line}
	if off >= 0 {
		f.Offset, f.HasOffset = uint64(off), true
	}
	return t.Frame(f)
}

// GoDump is a Go traceback dump using every goroutine field.
func GoDump(t *stack.Table) *stack.Dump {
	work := Frame(t, "main.(*Server).work", "/src/app/server.go", 42, 0x1d)
	inl := t.Frame(stack.Frame{Func: "main.helper", File: "/src/app/helper.go", Line: 7, Inlined: true})
	recv := Frame(t, "main.worker[...]", "/src/app/worker.go", 18, 0x5c)
	gopark := Frame(t, "runtime.gopark", "/usr/local/go/src/runtime/proc.go", 460, 0xce)
	mainf := Frame(t, "main.main", "/src/app/main.go", 30, 0x1f3)
	spawn := Frame(t, "main.startWorkers", "/src/app/main.go", 55, 0x44)
	anc := t.Frame(stack.Frame{Func: "main.startWorkers.func1", File: "/src/app/main.go", Line: 61, Offset: 0x2b, HasOffset: true})
	win := Frame(t, "main.windows", `C:/Users/dev/app/win.go`, 3, 0x9f)
	unknown := t.Frame(stack.Frame{Func: "main.odd", File: "??", Line: 0})
	entry := t.Frame(stack.Frame{Func: "main.entry", File: "/src/app/entry.go", Line: 1, HasOffset: true})

	deep := t.Stack([]*stack.Frame{work, inl, recv, mainf}, stack.Elision{Elided: true, Count: 103, At: 2})
	return &stack.Dump{
		Source: stack.Source{
			Kind:       stack.KindGoTraceback,
			Runtime:    "go1.26.8",
			Target:     "http://127.0.0.1:6060/debug/pprof/goroutine?debug=2",
			CapturedAt: time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC),
			Capture: &stack.Capture{
				Mode: "full", Goroutines: 9, Duration: 1500 * time.Microsecond,
				Pause: 120 * time.Microsecond, Pauses: 2, Missing: []string{"labels"},
			},
		},
		Preamble: []string{
			"panic: first [recovered]",
			"\tpanic: second \"quoted\" \\ back",
			"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x514143]",
		},
		Truncated: true,
		Warnings: []*stack.ParseError{
			{Line: 12, Offset: 345, Msg: "frame without file line", Text: "main.broken("},
			{Line: 99, Offset: 4000, Msg: "dump ends inside a goroutine"},
		},
		Total: 8,
		Routines: []*stack.Routine{
			{
				ID: 1, Count: 1, State: "running", Locked: true,
				Labels: t.Labels(stack.Labels{{Key: "svc", Value: "users"}, {Key: "weird key", Value: "a\"b\nc\tü\x01"}}),
				GP:     0xc0000061c0, M: 5, MP: 0xc00008b008, HasGP: true,
				Stack: deep,
				Values: t.Values([]stack.FrameValue{
					{Args: "0xc000010000, {0x0?, 0x1}", FP: 0xc000050f80, SP: 0xc000050f50, PC: 0x4a1b2c},
					{},
					{Args: "0x0?, ..."},
					{},
				}),
				Line: 5,
			},
			{
				ID: 17, Count: 1, State: "chan receive", WaitMinutes: 3,
				Leaked: true, Durable: true, Scan: true, Bubble: 2,
				ParentID:        1,
				CreatedBy:       spawn,
				CreatedByValues: &stack.FrameValue{FP: 0xc000051fe0, SP: 0xc000051fb8, PC: 0x4a1c00},
				Stack:           t.Stack([]*stack.Frame{gopark, recv}, stack.Elision{Elided: true, At: 2}),
				Values:          t.Values([]stack.FrameValue{{Args: "0x1?"}, {Args: "{}"}}),
				Ancestors: []stack.Ancestor{
					{ID: 1, Stack: t.Stack([]*stack.Frame{anc}, stack.Elision{}), CreatedBy: mainf},
					{ID: 0, Stack: t.Stack([]*stack.Frame{mainf}, stack.Elision{Elided: true, At: 1}),
						Values: t.Values([]stack.FrameValue{{PC: 0x4a0000}})},
				},
				Line: 20,
			},
			{
				ID: 5, Count: 1, State: "running", GP: 0xc000007000, M: -1, HasGP: true,
				Unavailable: true, ParentID: 1, CreatedBy: spawn,
				Stack: t.Stack(nil, stack.Elision{}),
			},
			{
				ID: 9, Count: 1, State: "IO wait", WaitMinutes: 61,
				Stack: t.Stack([]*stack.Frame{win, unknown, entry}, stack.Elision{}),
			},
			{
				ID: 33, Count: 1, State: "sleep", Inferred: []string{"state", "wait_minutes"}, Stale: true,
				Stack: t.Stack([]*stack.Frame{gopark}, stack.Elision{}),
			},
			{
				Count: 3, State: "select",
				Stack: t.Stack([]*stack.Frame{gopark, work}, stack.Elision{}),
			},
		},
		Races: []*stack.Race{
			{
				Line: 40,
				Accesses: []stack.RaceAccess{
					{Op: "write", Addr: 0xc000014100, Goroutine: 7, Line: 42, Stack: t.Stack([]*stack.Frame{work, mainf}, stack.Elision{})},
					{Op: "read", Previous: true, Atomic: true, Size: 8, Addr: 0xc000014100, Goroutine: 1, Main: true, Line: 47, Stack: t.Stack([]*stack.Frame{mainf}, stack.Elision{})},
				},
				Creators: []stack.RaceCreator{{Goroutine: 7, State: "running", Line: 51, Stack: t.Stack([]*stack.Frame{spawn, mainf}, stack.Elision{})}},
			},
			{
				Accesses: []stack.RaceAccess{{Op: "read", Goroutine: 8, Stack: t.Stack(nil, stack.Elision{})}},
			},
		},
		SystemStack: &stack.SystemStack{
			Line:   60,
			Stack:  t.Stack([]*stack.Frame{gopark, mainf}, stack.Elision{}),
			Values: t.Values([]stack.FrameValue{{Args: "0x1?", FP: 0xc000051fe0, SP: 0xc000051fb8, PC: 0x4a1c00}, {}}),
		},
	}
}

// JVMDump is a JVM thread dump using every thread field.
func JVMDump(t *stack.Table) *stack.Dump {
	park := t.Frame(stack.Frame{Func: "jdk.internal.misc.Unsafe.park", Module: "java.base@17.0.15", Native: true})
	lock := t.Frame(stack.Frame{Func: "java.util.concurrent.locks.LockSupport.park", File: "LockSupport.java", Line: 211, Module: "java.base@17.0.15"})
	run := t.Frame(stack.Frame{Func: "com.example.Worker.run", File: "Worker.java", Line: 33})
	return &stack.Dump{
		Source: stack.Source{Kind: stack.KindJVMText, Runtime: "OpenJDK 64-Bit Server VM (17.0.15+6)", Target: "pid 4242"},
		Total:  2,
		Routines: []*stack.Routine{
			{
				ID: 23, Count: 1, Name: "pool-1-thread-1", State: "WAITING (parking)",
				Stack: t.Stack([]*stack.Frame{park, lock, run}, stack.Elision{}),
				Values: t.Values([]stack.FrameValue{
					{Locks: []stack.Lock{{Kind: stack.LockParked, Addr: "0x000000076ab62208", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}}},
					{},
					{Locks: []stack.Lock{{Kind: stack.LockHeld, Addr: "0x000000076ab00000", Class: "java.lang.Object"}, {Kind: stack.LockEliminated}}},
				}),
				Thread: &stack.Thread{
					OSID: 0x4a03, Daemon: true, Priority: 5, OSPrio: 31,
					CPU: 1250 * time.Millisecond, Elapsed: 3600 * time.Second,
					Container: "<root>", Detail: "tid=0x00007f8b4c0f6800",
					Synchronizers: []stack.Lock{{Kind: stack.LockOwnable, Addr: "0x000000076ab99999", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}},
				},
				Line: 3,
			},
			{
				ID: 31, Count: 1, Name: "", State: "RUNNABLE",
				Stack:  t.Stack([]*stack.Frame{run}, stack.Elision{}),
				Thread: &stack.Thread{Virtual: true, Carrier: 23, Native: true},
			},
		},
	}
}

// Groups are groups as package dedupe builds them over the Go
// fixture's routines.
func Groups(t *stack.Table, d *stack.Dump) []*stack.Group {
	r := d.Routines
	return []*stack.Group{
		{
			Key: "a1b2", Count: 1234, IDs: []int64{5, 7, 9, 10, 11, 12, 200}, MoreIDs: 1227,
			States:  map[string]int64{"chan receive": 1200, "select": 34},
			WaitMin: 3, WaitMax: 17, Locked: 2, Leaked: 1200,
			Labels: []stack.LabelCount{
				{Labels: t.Labels(stack.Labels{{Key: "svc", Value: "users"}}), Count: 1200},
				{Labels: t.Labels(stack.Labels{{Key: "svc", Value: "admin"}, {Key: "odd key", Value: "x y"}}), Count: 34},
			},
			ParentIDs: []int64{1},
			Sample:    r[1],
		},
		{
			Key: "c3d4", Count: 1, IDs: []int64{1},
			States:  map[string]int64{"running": 1},
			Locked:  1,
			Labels:  []stack.LabelCount{{Labels: r[0].Labels, Count: 1}},
			Sample:  r[0],
			WaitMin: 0, WaitMax: 0,
		},
		{
			Key: "e5f6", Count: 3, IDs: nil,
			States: map[string]int64{"select": 3},
			Sample: r[5],
		},
	}
}
