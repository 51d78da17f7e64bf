//go:build linux && amd64

package goproc

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// windowStepper is a Stopper that lands a thread of a target on each
// instruction of a stack switch, one read at a time. All the target's
// threads stay stopped between calls: enter arms a breakpoint (int3) at a
// function's entry, lets the target run until a thread the test accepts
// reaches it, and stops every thread there; step then moves that thread
// alone by one instruction (PTRACE_SINGLESTEP). Stop returns every
// thread's registers as they stand and Resume leaves them stopped. A
// thread is never stepped over a system call (it could wait in it for a
// stopped thread), and a signal a thread stops to receive while the
// target is held is delivered when it runs again. Every call must come
// from the OS thread that seized the target: the test's goroutine is
// locked to it.
type windowStepper struct {
	t    testing.TB
	pid  int
	tids map[int]bool           // seized threads: true while it runs
	sig  map[int]syscall.Signal // a signal to deliver when the thread runs
	bp   uint64                 // the armed breakpoint, 0: none
	orig []byte                 // the byte it replaced
	tid  int                    // the thread stepped, 0: none
	// drop holds the threads whose SIGTRAP of the breakpoint is still
	// pending: it is not delivered when it comes.
	drop map[int]bool
}

const (
	ptraceOTraceClone = 0x8
	ptraceEventClone  = 3
)

// newWindowStepper seizes and stops every thread of pid; the test's
// cleanup lets them go.
func newWindowStepper(t testing.TB, pid int) *windowStepper {
	t.Helper()
	runtime.LockOSThread()
	s := &windowStepper{t: t, pid: pid, tids: map[int]bool{}, sig: map[int]syscall.Signal{}, drop: map[int]bool{}}
	t.Cleanup(s.release)
	s.seizeAll()
	return s
}

// seizeAll seizes and stops the threads not seized yet; threads they
// start are seized by the kernel (PTRACE_O_TRACECLONE).
func (s *windowStepper) seizeAll() {
	for {
		entries, err := os.ReadDir("/proc/" + strconv.Itoa(s.pid) + "/task")
		if err != nil {
			s.t.Fatal(err)
		}
		fresh := 0
		for _, e := range entries {
			tid, _ := strconv.Atoi(e.Name())
			if _, ok := s.tids[tid]; ok {
				continue
			}
			if _, _, errno := syscall.RawSyscall6(syscall.SYS_PTRACE, ptraceSeize, uintptr(tid), 0, ptraceOTraceClone, 0, 0); errno != 0 {
				continue
			}
			s.tids[tid], fresh = true, fresh+1
			ptraceCall(ptraceInterrupt, tid)
			s.stopped(tid)
		}
		if fresh == 0 {
			return
		}
	}
}

// event is what wait saw of a thread.
type event int

const (
	evNone   event = iota // nothing yet
	evExited              // gone (forgotten)
	evStop                // a ptrace event stop (interrupt, clone, start)
	evHit                 // stopped at the breakpoint (pc moved back onto it)
	evTrap                // SIGTRAP: a single step done
	evSignal              // a signal to deliver, kept in sig
)

// wait reports the next stop of tid, if any (it does not wait for one).
// A thread the target starts is seized stopped and, if it started while
// the target ran (running), let run.
func (s *windowStepper) wait(tid int, running bool) event {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err == nil && wpid == 0:
			return evNone
		case err != nil || ws.Exited() || ws.Signaled():
			delete(s.tids, tid)
			return evExited
		}
		s.tids[tid] = false
		sig, cause := ws.StopSignal(), int(ws)>>16
		switch {
		case cause == ptraceEventClone:
			// The new thread starts in an event stop of its own.
			if child, err := syscall.PtraceGetEventMsg(tid); err == nil {
				s.tids[int(child)] = true
				s.stopped(int(child))
				if running {
					s.cont(int(child))
				}
			}
			return evStop
		case cause != 0:
			return evStop
		case sig != syscall.SIGTRAP:
			s.sig[tid] = sig
			return evSignal
		case s.drop[tid]:
			delete(s.drop, tid)
			return evStop
		}
		if s.bp != 0 {
			var regs syscall.PtraceRegs
			if syscall.PtraceGetRegs(tid, &regs) == nil && regs.Rip == s.bp+1 {
				regs.Rip = s.bp
				if err := syscall.PtraceSetRegs(tid, &regs); err != nil {
					s.t.Fatalf("moving thread %d back onto the breakpoint: %v", tid, err)
				}
				return evHit
			}
		}
		return evTrap
	}
}

// stopped waits, up to 2 s, for a thread asked to stop to stop.
func (s *windowStepper) stopped(tid int) event {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Microsecond) {
		if ev := s.wait(tid, false); ev != evNone {
			return ev
		}
	}
	s.t.Fatalf("thread %d did not stop", tid)
	return evNone
}

// cont lets a stopped thread run, with the signal it holds.
func (s *windowStepper) cont(tid int) {
	if err := syscall.PtraceCont(tid, int(s.sig[tid])); err == nil {
		s.tids[tid] = true
	}
	delete(s.sig, tid)
}

// stopAll stops every thread that runs.
func (s *windowStepper) stopAll() {
	for tid, running := range s.tids {
		if running {
			ptraceCall(ptraceInterrupt, tid)
			s.stopped(tid)
		}
	}
}

// poke writes b at addr of the target's text.
func (s *windowStepper) poke(addr uint64, b []byte) {
	for tid := range s.tids {
		if _, err := syscall.PtracePokeText(tid, uintptr(addr), b); err != nil {
			s.t.Fatalf("writing the target's code at %#x: %v", addr, err)
		}
		return
	}
}

// moveBack moves each thread that hit the breakpoint but was stopped
// before the kernel reported its SIGTRAP (an interrupt's stop comes
// first) back onto the breakpoint, and drops that SIGTRAP.
func (s *windowStepper) moveBack() {
	for tid := range s.tids {
		status, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/task/" + strconv.Itoa(tid) + "/status")
		if err != nil {
			continue
		}
		_, pnd, _ := strings.Cut(string(status), "\nSigPnd:\t")
		mask, _ := strconv.ParseUint(strings.TrimSpace(strings.SplitN(pnd, "\n", 2)[0]), 16, 64)
		if mask&(1<<(syscall.SIGTRAP-1)) == 0 {
			continue
		}
		var regs syscall.PtraceRegs
		if syscall.PtraceGetRegs(tid, &regs) == nil && regs.Rip == s.bp+1 {
			regs.Rip = s.bp
			if err := syscall.PtraceSetRegs(tid, &regs); err != nil {
				s.t.Fatal(err)
			}
			s.drop[tid] = true
		}
	}
}

// disarm takes the breakpoint out.
func (s *windowStepper) disarm() {
	if s.bp != 0 {
		s.poke(s.bp, s.orig)
		s.bp = 0
	}
}

// enter runs the target until a thread accept takes reaches pc, and
// stops every thread there; it reports false if none did by deadline.
func (s *windowStepper) enter(pc uint64, accept func(Thread) bool, deadline time.Time) bool {
	s.tid = 0
	for {
		s.orig = make([]byte, 1)
		for tid := range s.tids {
			if _, err := syscall.PtracePeekText(tid, uintptr(pc), s.orig); err != nil {
				s.t.Fatal(err)
			}
			break
		}
		s.poke(pc, []byte{0xcc})
		s.bp = pc
		for tid := range s.tids {
			s.cont(tid)
		}
		hit := 0
		for hit == 0 && time.Now().Before(deadline) {
			for tid := range s.tids {
				switch s.wait(tid, true) {
				case evHit:
					hit = tid
				case evStop, evTrap, evSignal:
					s.cont(tid) // the signal is delivered at once
				}
				if hit != 0 {
					break
				}
			}
			if hit == 0 {
				time.Sleep(20 * time.Microsecond)
			}
		}
		s.stopAll()
		s.moveBack()
		s.disarm()
		if hit == 0 {
			return false
		}
		if accept(s.thread(hit)) {
			s.tid = hit
			return true
		}
		s.step1(hit) // off the entry, or it traps there again
	}
}

// step moves the entered thread by one instruction; false when it stands
// at a system call.
func (s *windowStepper) step() bool { return s.step1(s.tid) }

func (s *windowStepper) step1(tid int) bool {
	for try := 0; try < 10; try++ {
		th := s.thread(tid)
		var insn [2]byte
		if _, err := syscall.PtracePeekText(tid, uintptr(th.PC), insn[:]); err != nil || insn == [2]byte{0x0f, 0x05} {
			return false
		}
		if err := syscall.PtraceSingleStep(tid); err != nil {
			s.t.Fatalf("stepping thread %d: %v", tid, err)
		}
		switch s.stopped(tid) {
		case evTrap:
			return true
		case evExited:
			return false
		}
		// A signal (kept for later) or a pending interrupt came first.
	}
	return false
}

// thread returns a stopped thread's registers.
func (s *windowStepper) thread(tid int) Thread {
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(tid, &regs); err != nil {
		s.t.Fatalf("registers of thread %d: %v", tid, err)
	}
	return Thread{TID: tid, PC: regs.Rip, SP: regs.Rsp, FP: regs.Rbp, TLS: regs.Fs_base}
}

// Stop returns every thread as it stands.
func (s *windowStepper) Stop() ([]Thread, error) {
	var threads []Thread
	for tid := range s.tids {
		threads = append(threads, s.thread(tid))
	}
	return threads, nil
}

// Resume leaves the target stopped for the next read.
func (s *windowStepper) Resume() error { return nil }

// release lets the target go: the breakpoint out, every thread resumed
// with the signal it holds.
func (s *windowStepper) release() {
	defer runtime.UnlockOSThread()
	if s.bp != 0 {
		s.stopAll() // it ran when a test failed: stop it to disarm
		s.moveBack()
		s.disarm()
	}
	for tid := range s.drop {
		// Let the SIGTRAP come, and drop it.
		syscall.PtraceCont(tid, 0)
		s.stopped(tid)
	}
	for tid := range s.tids {
		syscall.RawSyscall6(syscall.SYS_PTRACE, syscall.PTRACE_DETACH, uintptr(tid), 0, uintptr(s.sig[tid]), 0, 0)
	}
}

// TestReadInStackSwitch reads a target with one of its threads standing,
// in turn, on every instruction of the runtime's stack switches: from
// the entry, on the goroutine's stack, of systemstack (and the
// gosave_systemstack_switch it calls), mcall, morestack and nanotime1
// (through its VDSO call) until the thread runs on the system stack;
// from systemstack's return to the goroutine's stack until it returns;
// and through gogo from the system stack until it jumps into the
// goroutine. At each, with every other thread stopped wherever it was,
// every goroutine must be walked to its start (runtime.goexit) or
// written without its stack with a warning that names it; and the
// goroutine on the stepped thread must be walked whole, its callers
// those it had at the first instruction.
func TestReadInStackSwitch(t *testing.T) {
	for _, tc := range []string{"go1.20.14", ""} {
		b := livechild.Build{Toolchain: tc}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b, "-churn", "5", "-grow")
			bias, err := LoadBias(tg.PID, tg.bin)
			if err != nil {
				t.Fatal(err)
			}
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			sw := &switchReader{t: t, tg: tg, bias: bias, minor: minor, s: newWindowStepper(t, tg.PID)}
			sw.r = newReader(tg.bin, nil, Options{LoadBias: bias})
			sw.gosave = sw.fn("gosave_systemstack_switch")
			var per []string
			for _, w := range []struct {
				name    string
				onStack bool // entered on the goroutine's stack
				returns bool // returns to the goroutine's stack
			}{
				{"runtime.systemstack", true, true},
				{"runtime.mcall", true, false},
				{"runtime.morestack", true, false},
				{"runtime.nanotime1", true, false},
				{"gogo", false, false},
			} {
				f := sw.fn(w.name)
				reads := sw.reads
				for range 2 {
					ret := sw.window(w.name, f.entry+bias, f, w.onStack)
					if w.returns {
						if ret == 0 {
							t.Fatalf("%s did not call out on the system stack", w.name)
						}
						sw.window(w.name+"'s return", ret, f, false)
					}
				}
				per = append(per, w.name+" "+strconv.Itoa(sw.reads-reads))
			}
			t.Logf("reads: %s; %d with the thread in gosave_systemstack_switch", strings.Join(per, ", "), sw.inGosave)
			if sw.inGosave == 0 {
				t.Error("no read had the thread in gosave_systemstack_switch")
			}
		})
	}
}

// switchReader reads a target held by a windowStepper.
type switchReader struct {
	t               *testing.T
	tg              *target
	bias            uint64
	minor           int
	s               *windowStepper
	r               *reader // for names of pcs
	gosave          funcInfo
	reads, inGosave int
}

// fn returns a function of the target's table by name.
func (sw *switchReader) fn(name string) funcInfo {
	f := sw.tg.bin.tab.funcByName(name)
	if !f.valid() {
		sw.t.Fatalf("%s is not in the table", name)
	}
	return f
}

// in reports whether a target pc is in one of fs.
func (sw *switchReader) in(pc uint64, fs ...funcInfo) bool {
	e := sw.tg.bin.tab.findFunc(pc - sw.bias).entry
	for _, f := range fs {
		if f.valid() && e == f.entry {
			return true
		}
	}
	return false
}

// window lands a thread that runs a goroutine (on its stack, with
// onStack) at pc, then reads the target at each instruction the thread
// takes until it leaves f and gosave_systemstack_switch (into code
// outside Go, the VDSO: read once there). It returns the return address in f of a call
// the thread left f by, if it did.
func (sw *switchReader) window(name string, pc uint64, f funcInfo, onStack bool) (ret uint64) {
	t := sw.t
	var goid uint64 // the goroutine the thread runs
	accept := func(th Thread) bool {
		r := newReader(sw.tg.bin, NewProcessMemory(sw.tg.PID), Options{LoadBias: sw.bias})
		list, err := r.readList()
		if err != nil {
			t.Fatal(err)
		}
		r.readHeads(list)
		r.readRunning([]Thread{th})
		for _, g := range r.gs {
			if g.running && g.m.procid == uint64(th.TID) && (!onStack || th.SP >= g.rec.stackLo && th.SP < g.rec.stackHi) {
				goid = g.rec.goid
				return true
			}
		}
		return false
	}
	if !sw.s.enter(pc, accept, time.Now().Add(10*time.Second)) {
		t.Fatalf("no thread running a goroutine reached %s in 10 s", sw.r.where(pc))
	}
	var callers []stack.Frame
	for step := 0; step < 200; step++ {
		th := sw.s.thread(sw.s.tid)
		cur, inside := sw.tg.bin.tab.findFunc(th.PC-sw.bias), sw.in(th.PC, f, sw.gosave)
		if step > 0 && !inside && cur.valid() {
			var w [8]byte
			if _, err := syscall.PtracePeekData(th.TID, uintptr(th.SP), w[:]); err == nil && sw.in(leUint64(w[:]), f) {
				ret = leUint64(w[:])
			}
			return ret
		}
		at := sw.r.where(th.PC)
		d, _, err := Read(context.Background(), sw.tg.bin, NewProcessMemory(sw.tg.PID), Options{Stopper: sw.s, LoadBias: sw.bias, System: true})
		if err != nil {
			t.Fatal(err)
		}
		sw.reads++
		checkWalked(t, d, sw.minor, at)
		var r *stack.Routine
		for _, x := range d.Routines {
			if x.ID == int64(goid) {
				r = x
			}
		}
		switch {
		case r == nil:
			t.Fatalf("thread at %s: goroutine %d, on it, is not in the dump", at, goid)
		case r.Unavailable:
			t.Errorf("thread at %s: goroutine %d, on it, was not walked", at, r.ID)
		case step == 0:
			for _, fr := range r.Frames()[1:] {
				callers = append(callers, *fr)
			}
		case !endsWith(r.Frames(), callers):
			t.Errorf("thread at %s: goroutine %d does not end as it did at %s:\n%s", at, r.ID, name, render(t, r))
		case sw.in(th.PC, sw.gosave):
			sw.inGosave++
		}
		if t.Failed() || step > 0 && !inside || !sw.s.step() {
			return 0 // in code outside Go (the VDSO): read there once
		}
	}
	t.Fatalf("the thread is still in %s after 200 instructions", name)
	return 0
}

// checkWalked checks that every goroutine of d is walked to its start or
// written without its stack with a warning that names it.
func checkWalked(t *testing.T, d *stack.Dump, minor int, at string) {
	t.Helper()
	for _, r := range d.Routines {
		fs := r.Frames()
		switch {
		case r.Unavailable:
			if !warned(d, "goroutine "+strconv.FormatInt(r.ID, 10)+": ") {
				t.Errorf("thread at %s: goroutine %d written without its stack and without a warning", at, r.ID)
			}
		case len(fs) == 0 || fs[len(fs)-1].Func != "runtime.goexit" && !(minor < 21 && r.Stack.Elided):
			t.Errorf("thread at %s: goroutine %d is not walked to runtime.goexit:\n%s", at, r.ID, render(t, r))
		}
	}
}

// endsWith reports whether the last frames of fs are want.
func endsWith(fs []*stack.Frame, want []stack.Frame) bool {
	if len(fs) < len(want) {
		return false
	}
	for i, w := range want {
		f := fs[len(fs)-len(want)+i]
		if f.Func != w.Func || f.File != w.File || f.Line != w.Line || f.Offset != w.Offset {
			return false
		}
	}
	return true
}
