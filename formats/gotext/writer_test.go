package gotext

import (
	"bytes"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// writeText encodes dumps as Go traceback text through NewEncoder.
func writeText(t testing.TB, dumps ...*stack.Dump) string {
	t.Helper()
	var b bytes.Buffer
	enc := NewEncoder(&b)
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// wantFixtureText is the Go fixture as the runtime would print it, checked
// by hand against runtime.goroutineheader, traceback.go and the race
// detector's report format.
const wantFixtureText = `==================
WARNING: DATA RACE
Write at 0x00c000014100 by goroutine 7:
  main.(*Server).work()
      /src/app/server.go:42 +0x1d
  main.main()
      /src/app/main.go:30 +0x1f3

Previous atomic read of size 8 at 0x00c000014100 by main goroutine:
  main.main()
      /src/app/main.go:30 +0x1f3

Goroutine 7 (running) created at:
  main.startWorkers()
      /src/app/main.go:55 +0x44
  main.main()
      /src/app/main.go:30 +0x1f3
==================
==================
WARNING: DATA RACE
Read by goroutine 8:
  [failed to restore the stack]
==================
panic: first [recovered]
	panic: second "quoted" \ back
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x514143]

runtime stack:
runtime.gopark(0x1?)
	/usr/local/go/src/runtime/proc.go:460 +0xce fp=0xc000051fe0 sp=0xc000051fb8 pc=0x4a1c00
main.main()
	/src/app/main.go:30 +0x1f3

goroutine 1 gp=0xc0000061c0 m=5 mp=0xc00008b008 [running, locked to thread labels:{"svc": "users", "weird key": "a\"b\nc\t\u00fc\x01"}]:
main.(*Server).work(0xc000010000, {0x0?, 0x1})
	/src/app/server.go:42 +0x1d fp=0xc000050f80 sp=0xc000050f50 pc=0x4a1b2c
main.helper(...)
	/src/app/helper.go:7
...103 frames elided...
main.worker[...](0x0?, ...)
	/src/app/worker.go:18 +0x5c
main.main()
	/src/app/main.go:30 +0x1f3

goroutine 17 [chan receive (leaked) (scan) (durable), 3 minutes, synctest bubble 2]:
runtime.gopark(0x1?)
	/usr/local/go/src/runtime/proc.go:460 +0xce
main.worker[...]({})
	/src/app/worker.go:18 +0x5c
...additional frames elided...
created by main.startWorkers in goroutine 1
	/src/app/main.go:55 +0x44 fp=0xc000051fe0 sp=0xc000051fb8 pc=0x4a1c00
[originating from goroutine 1]:
main.startWorkers.func1(...)
	/src/app/main.go:61 +0x2b
created by main.main
	/src/app/main.go:30 +0x1f3
[originating from goroutine 0]:
main.main(...)
	/src/app/main.go:30 +0x1f3 pc=0x4a0000
...additional frames elided...

goroutine 5 gp=0xc000007000 m=nil [running]:
	goroutine running on other thread; stack unavailable
created by main.startWorkers in goroutine 1
	/src/app/main.go:55 +0x44

goroutine 9 [IO wait, 61 minutes]:
main.windows()
	C:/Users/dev/app/win.go:3 +0x9f
main.odd()
	??:0
main.entry()
	/src/app/entry.go:1 +0x0

goroutine 33 [sleep]:
runtime.gopark()
	/usr/local/go/src/runtime/proc.go:460 +0xce

goroutine 0 [select]:
runtime.gopark()
	/usr/local/go/src/runtime/proc.go:460 +0xce
main.(*Server).work()
	/src/app/server.go:42 +0x1d

stackdump: traceback cut: the dump was truncated; later goroutines are missing
`

func TestTextWriterGoTraceback(t *testing.T) {
	got := writeText(t, dumptest.GoDump(stack.NewTable()))
	if d := dumptest.DiffText(wantFixtureText, got); d != "" {
		t.Error(d)
	}
}

func TestTextWriterForms(t *testing.T) {
	tab := stack.NewTable()
	f := dumptest.Frame(tab, "main.f", "/x.go", 3, 0x10)
	cgo := tab.Frame(stack.Frame{Func: "c_sleep", File: "sleep.c", Line: 12, Native: true})
	for _, c := range []struct {
		name string
		r    *stack.Routine
		want string
	}{
		{"plain", &stack.Routine{ID: 4, State: "sleep", Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})},
			"goroutine 4 [sleep]:\nmain.f()\n\t/x.go:3 +0x10\n"},
		{"empty stack", &stack.Routine{ID: 4, State: "chan send", Stack: tab.Stack(nil, stack.Elision{})},
			"goroutine 4 [chan send]:\n"},
		{"elided at the end", &stack.Routine{ID: 4, State: "running", Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{Elided: true, Count: 7, At: 1})},
			"goroutine 4 [running]:\nmain.f()\n\t/x.go:3 +0x10\n...7 frames elided...\n"},
		{"cgo frame", &stack.Routine{ID: 6, State: "syscall", Stack: tab.Stack([]*stack.Frame{cgo}, stack.Elision{}),
			Values: tab.Values([]stack.FrameValue{{PC: 0x4012ab}})},
			"goroutine 6 [syscall]:\nc_sleep\n\tsleep.c:12 pc=0x4012ab\n"},
		{"label quoting", &stack.Routine{ID: 2, State: "select", Labels: stack.Labels{{Key: "k", Value: "tab\there 🙂 \x7f"}}, Stack: tab.Stack(nil, stack.Elision{})},
			`goroutine 2 [select labels:{"k": "tab\there \U0001f642 \u007f"}]:` + "\n"},
		{"non-Go function", &stack.Routine{ID: 6, State: "syscall", Stack: tab.Stack([]*stack.Frame{tab.Frame(stack.Frame{Func: "non-Go function", Native: true}), f}, stack.Elision{}),
			Values: tab.Values([]stack.FrameValue{{PC: 0x4a7e0f}, {}})},
			"goroutine 6 [syscall]:\nnon-Go function at pc=0x4a7e0f\nmain.f()\n\t/x.go:3 +0x10\n"},
		{"cgo frame without file", &stack.Routine{ID: 6, State: "syscall", Stack: tab.Stack([]*stack.Frame{tab.Frame(stack.Frame{Func: "c_loop", Native: true})}, stack.Elision{}),
			Values: tab.Values([]stack.FrameValue{{PC: 0x4012ab}})},
			"goroutine 6 [syscall]:\nc_loop\n\tpc=0x4012ab\n"},
		{"old creator", &stack.Routine{ID: 3, State: "IO wait", CreatedBy: f, Stack: tab.Stack(nil, stack.Elision{})},
			"goroutine 3 [IO wait]:\ncreated by main.f\n\t/x.go:3 +0x10\n"},
	} {
		got := writeText(t, &stack.Dump{Routines: []*stack.Routine{c.r}})
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestTextWriterSeparatesDumps(t *testing.T) {
	tab := stack.NewTable()
	f := dumptest.Frame(tab, "main.f", "/x.go", 3, 0x10)
	d1 := &stack.Dump{Preamble: []string{"SIGQUIT: quit"}, Routines: []*stack.Routine{
		{ID: 1, State: "running", Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})},
		{ID: 2, State: "sleep", Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})},
	}}
	d2 := &stack.Dump{Routines: []*stack.Routine{{ID: 1, State: "running", Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})}}}
	want := "SIGQUIT: quit\n\n" +
		"goroutine 1 [running]:\nmain.f()\n\t/x.go:3 +0x10\n\n" +
		"goroutine 2 [sleep]:\nmain.f()\n\t/x.go:3 +0x10\n\n" +
		"goroutine 1 [running]:\nmain.f()\n\t/x.go:3 +0x10\n"
	if got := writeText(t, d1, d2); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestTextWriterHeaderlessRoutine writes the frames an old signal dump
// printed right after its preamble without a goroutine header.
func TestTextWriterHeaderlessRoutine(t *testing.T) {
	tab := stack.NewTable()
	f := dumptest.Frame(tab, "runtime.notetsleepg", "/go/src/pkg/runtime/lock_futex.c", 190, 0x46)
	d := &stack.Dump{Preamble: []string{"SIGABRT: abort", "PC=0x424dd1"}, Routines: []*stack.Routine{
		{ID: 0, Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{}), Values: tab.Values([]stack.FrameValue{{Args: "0x649aa0", FP: 0x2ba270d3ff48}})},
		{ID: 0, Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})},
	}}
	want := "SIGABRT: abort\nPC=0x424dd1\n\n" +
		"runtime.notetsleepg(0x649aa0)\n\t/go/src/pkg/runtime/lock_futex.c:190 +0x46 fp=0x2ba270d3ff48\n\n" +
		"goroutine 0 []:\nruntime.notetsleepg()\n\t/go/src/pkg/runtime/lock_futex.c:190 +0x46\n"
	if got := writeText(t, d); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
