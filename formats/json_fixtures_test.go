package formats

import (
	"time"
)

// Hand-built models that set every field of the model at least once,
// interned through a Table as a reader would build them.

// fixtureFrame interns a Go frame; off < 0 means no +0x offset.
func fixtureFrame(t *Table, fn, file string, line int, off int64) *Frame {
	f := Frame{Func: fn, File: file, Line: line}
	if off >= 0 {
		f.Offset, f.HasOffset = uint64(off), true
	}
	return t.Frame(f)
}

// fixtureGoDump is a Go traceback dump using every goroutine field.
func fixtureGoDump(t *Table) *Dump {
	work := fixtureFrame(t, "main.(*Server).work", "/src/app/server.go", 42, 0x1d)
	inl := t.Frame(Frame{Func: "main.helper", File: "/src/app/helper.go", Line: 7, Inlined: true})
	recv := fixtureFrame(t, "main.worker[...]", "/src/app/worker.go", 18, 0x5c)
	gopark := fixtureFrame(t, "runtime.gopark", "/usr/local/go/src/runtime/proc.go", 460, 0xce)
	mainf := fixtureFrame(t, "main.main", "/src/app/main.go", 30, 0x1f3)
	spawn := fixtureFrame(t, "main.startWorkers", "/src/app/main.go", 55, 0x44)
	anc := t.Frame(Frame{Func: "main.startWorkers.func1", File: "/src/app/main.go", Line: 61, Offset: 0x2b, HasOffset: true})
	win := fixtureFrame(t, "main.windows", `C:/Users/dev/app/win.go`, 3, 0x9f)
	unknown := t.Frame(Frame{Func: "main.odd", File: "??", Line: 0})
	entry := t.Frame(Frame{Func: "main.entry", File: "/src/app/entry.go", Line: 1, HasOffset: true})

	deep := t.Stack([]*Frame{work, inl, recv, mainf}, Elision{Elided: true, Count: 103, At: 2})
	return &Dump{
		Source: Source{
			Kind:       KindGoTraceback,
			Runtime:    "go1.26.8",
			Target:     "http://127.0.0.1:6060/debug/pprof/goroutine?debug=2",
			CapturedAt: time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC),
			Capture: &Capture{
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
		Warnings: []*ParseError{
			{Line: 12, Offset: 345, Msg: "frame without file line", Text: "main.broken("},
			{Line: 99, Offset: 4000, Msg: "dump ends inside a goroutine"},
		},
		Total: 8,
		Routines: []*Routine{
			{
				ID: 1, Count: 1, State: "running", Locked: true,
				Labels: t.Labels(Labels{{"svc", "users"}, {"weird key", "a\"b\nc\tü\x01"}}),
				GP:     0xc0000061c0, M: 5, MP: 0xc00008b008, HasGP: true,
				Stack: deep,
				Values: t.Values([]FrameValue{
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
				CreatedByValues: &FrameValue{FP: 0xc000051fe0, SP: 0xc000051fb8, PC: 0x4a1c00},
				Stack:           t.Stack([]*Frame{gopark, recv}, Elision{Elided: true, At: 2}),
				Values:          t.Values([]FrameValue{{Args: "0x1?"}, {Args: "{}"}}),
				Ancestors: []Ancestor{
					{ID: 1, Stack: t.Stack([]*Frame{anc}, Elision{}), CreatedBy: mainf},
					{ID: 0, Stack: t.Stack([]*Frame{mainf}, Elision{Elided: true, At: 1}),
						Values: t.Values([]FrameValue{{PC: 0x4a0000}})},
				},
				Line: 20,
			},
			{
				ID: 5, Count: 1, State: "running", GP: 0xc000007000, M: -1, HasGP: true,
				Unavailable: true, ParentID: 1, CreatedBy: spawn,
				Stack: t.Stack(nil, Elision{}),
			},
			{
				ID: 9, Count: 1, State: "IO wait", WaitMinutes: 61,
				Stack: t.Stack([]*Frame{win, unknown, entry}, Elision{}),
			},
			{
				ID: 33, Count: 1, State: "sleep", Inferred: []string{"state", "wait_minutes"}, Stale: true,
				Stack: t.Stack([]*Frame{gopark}, Elision{}),
			},
			{
				Count: 3, State: "select",
				Stack: t.Stack([]*Frame{gopark, work}, Elision{}),
			},
		},
		Races: []*Race{
			{
				Line: 40,
				Accesses: []RaceAccess{
					{Op: "write", Addr: 0xc000014100, Goroutine: 7, Line: 42, Stack: t.Stack([]*Frame{work, mainf}, Elision{})},
					{Op: "read", Previous: true, Atomic: true, Size: 8, Addr: 0xc000014100, Goroutine: 1, Main: true, Line: 47, Stack: t.Stack([]*Frame{mainf}, Elision{})},
				},
				Creators: []RaceCreator{{Goroutine: 7, State: "running", Line: 51, Stack: t.Stack([]*Frame{spawn, mainf}, Elision{})}},
			},
			{
				Accesses: []RaceAccess{{Op: "read", Goroutine: 8, Stack: t.Stack(nil, Elision{})}},
			},
		},
		SystemStack: &SystemStack{
			Line:   60,
			Stack:  t.Stack([]*Frame{gopark, mainf}, Elision{}),
			Values: t.Values([]FrameValue{{Args: "0x1?", FP: 0xc000051fe0, SP: 0xc000051fb8, PC: 0x4a1c00}, {}}),
		},
	}
}

// fixtureJVMDump is a JVM thread dump using every thread field.
func fixtureJVMDump(t *Table) *Dump {
	park := t.Frame(Frame{Func: "jdk.internal.misc.Unsafe.park", Module: "java.base@17.0.15", Native: true})
	lock := t.Frame(Frame{Func: "java.util.concurrent.locks.LockSupport.park", File: "LockSupport.java", Line: 211, Module: "java.base@17.0.15"})
	run := t.Frame(Frame{Func: "com.example.Worker.run", File: "Worker.java", Line: 33})
	return &Dump{
		Source: Source{Kind: KindJVMText, Runtime: "OpenJDK 64-Bit Server VM (17.0.15+6)", Target: "pid 4242"},
		Total:  2,
		Routines: []*Routine{
			{
				ID: 23, Count: 1, Name: "pool-1-thread-1", State: "WAITING (parking)",
				Stack: t.Stack([]*Frame{park, lock, run}, Elision{}),
				Values: t.Values([]FrameValue{
					{Locks: []Lock{{Kind: LockParked, Addr: "0x000000076ab62208", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}}},
					{},
					{Locks: []Lock{{Kind: LockHeld, Addr: "0x000000076ab00000", Class: "java.lang.Object"}, {Kind: LockEliminated}}},
				}),
				Thread: &Thread{
					OSID: 0x4a03, Daemon: true, Priority: 5, OSPrio: 31,
					CPU: 1250 * time.Millisecond, Elapsed: 3600 * time.Second,
					Container: "<root>", Detail: "tid=0x00007f8b4c0f6800",
					Synchronizers: []Lock{{Kind: LockOwnable, Addr: "0x000000076ab99999", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}},
				},
				Line: 3,
			},
			{
				ID: 31, Count: 1, Name: "", State: "RUNNABLE",
				Stack:  t.Stack([]*Frame{run}, Elision{}),
				Thread: &Thread{Virtual: true, Carrier: 23, Native: true},
			},
		},
	}
}

// fixtureGroups are groups as package dedupe builds them over the Go
// fixture's routines.
func fixtureGroups(t *Table, d *Dump) []*Group {
	r := d.Routines
	return []*Group{
		{
			Key: "a1b2", Count: 1234, IDs: []int64{5, 7, 9, 10, 11, 12, 200}, MoreIDs: 1227,
			States:  map[string]int64{"chan receive": 1200, "select": 34},
			WaitMin: 3, WaitMax: 17, Locked: 2, Leaked: 1200,
			Labels: []LabelCount{
				{Labels: t.Labels(Labels{{"svc", "users"}}), Count: 1200},
				{Labels: t.Labels(Labels{{"svc", "admin"}, {"odd key", "x y"}}), Count: 34},
			},
			ParentIDs: []int64{1},
			Sample:    r[1],
		},
		{
			Key: "c3d4", Count: 1, IDs: []int64{1},
			States:  map[string]int64{"running": 1},
			Locked:  1,
			Labels:  []LabelCount{{Labels: r[0].Labels, Count: 1}},
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
