package goproc

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/stackdump/stackdump/stack"
)

func leUint64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// gState is one goroutine as the reader gets to know it.
type gState struct {
	rec gRecord
	stk stackMem
	// Where its walk starts: pc, sp (lr on arm64); trap for a pc read
	// from a stopped thread; isSyscall for syscallpc/syscallsp.
	pc, sp, lr      uint64
	trap, isSyscall bool
	walk            bool // the stack was read: walk it
	running         bool // running on a thread
	unavailable     bool // written without a stack
	moved           bool // read again after it moved (Stale)
	gone            bool // exited while read: left out
	m               mInfo
	finished        bool           // read and made into rt
	rt              *stack.Routine // nil for a goroutine left out
}

// mInfo is what the reader takes from a running goroutine's runtime.m.
type mInfo struct {
	addr           uint64
	id             int64
	procid         uint64
	vdsoSP, vdsoPC uint64
}

// startOf says where a parked goroutine's walk starts, as
// runtime.unwinder.initAt: its syscall registers while in a system call,
// else its saved ones. ok is false when they lie outside its stack.
func startOf(rec *gRecord) (pc, sp, lr uint64, isSyscall, ok bool) {
	if rec.syscallSP != 0 {
		pc, sp, isSyscall = rec.syscallPC, rec.syscallSP, true
	} else {
		pc, sp, lr = rec.schedPC, rec.schedSP, rec.schedLR
	}
	return pc, sp, lr, isSyscall, sp != 0 && sp >= rec.stackLo && sp < rec.stackHi && rec.stackHi-rec.stackLo <= maxStack
}

// maxStack bounds a goroutine's stack (the runtime's own limit is 1 GB
// on 64-bit); stackRead bounds what of it is read at once, with its
// record: the rest of a deeper stack is read as the walk reaches it
// (stackMem).
const maxStack = 1 << 30

var stackRead uint64 = 8 << 20 // a variable for the tests

// The batches of the reads: heads read together, and goroutines whose
// records and stacks are read together (at most batchBytes of stacks).
const (
	batchHeads      = 4096
	batchGoroutines = 1024
	batchBytes      = 8 << 20
)

// status returns g's status without the scan bit.
func (r *reader) status(rec *gRecord) int { return int(rec.status) &^ r.l.Status.Scan }

// isDead reports whether the runtime leaves g out of a traceback.
func (r *reader) isDead(rec *gRecord) bool {
	s := r.status(rec)
	return s == r.l.Status.Dead || s == r.l.Status.Idle || s == r.l.Status.DeadExtra && r.l.Status.DeadExtra >= 0
}

// readHeads reads the head of each goroutine of list, in address order
// and merged (gather), and keeps those that are not dead, in the
// runtime's order.
func (r *reader) readHeads(list []uint64) {
	sp := &r.space
	if len(sp.states) < len(list) {
		sp.states, sp.ptrs = make([]gState, len(list)), make([]*gState, len(list))
	}
	states, gs := sp.states[:len(list)], sp.ptrs[:len(list)]
	order := byAddr(list, sp.order)
	for start := 0; start < len(order); start += batchHeads {
		part := order[start:min(len(order), start+batchHeads)]
		var g gather
		for _, o := range part {
			g.add(o.addr, r.head, true)
		}
		r.buf = g.read(r.mem, r.buf)
		for k, o := range part {
			b := g.bytes(k)
			if b == nil {
				b = make([]byte, r.head)
				if err := r.mem.read(o.addr, b); err != nil {
					r.warn(0, fmt.Sprintf("goroutine record at %#x could not be read: %v", o.addr, err))
					gs[o.i] = nil
					continue
				}
			}
			st := &states[o.i]
			st.rec.addr = o.addr
			st.rec.decodeHead(&r.l.G, b)
			gs[o.i] = st
		}
	}
	// In the runtime's order, the dead left out, in place.
	live := gs[:0]
	for _, g := range gs {
		if g != nil && !r.isDead(&g.rec) {
			live = append(live, g)
		}
	}
	r.gs = live
}

// readStopped is the consistent read: the target stopped for the list,
// the heads and the running goroutines, then the parked goroutines read
// while it runs, each checked against its head.
func (r *reader) readStopped(ctx context.Context) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	r.mode = ModeStopped
	// Room for the goroutines there are now, and some more: allocating
	// while the target is stopped would stall it longer.
	if n, err := r.mem.word(r.bin.allglen + r.bias); err == nil && n < 1<<28 {
		r.reserve(int(n + n/8 + 64))
	}
	t0 := time.Now()
	threads, err := r.opts.Stopper.Stop()
	if err != nil {
		r.stats.Stall = time.Since(t0)
		return fmt.Errorf("goproc: stopping the target: %w", err)
	}
	resumed := false
	resume := func() error {
		if resumed {
			return nil
		}
		resumed = true
		err := r.opts.Stopper.Resume()
		r.stats.Stall = time.Since(t0)
		return err
	}
	defer resume() // on every return, a panic too
	r.setNow()
	list, err := r.readList()
	if err != nil {
		return err
	}
	r.readHeads(list)
	r.readRunning(threads)
	if err := resume(); err != nil {
		return fmt.Errorf("goproc: resuming the target: %w", err)
	}
	r.finishRunning()
	return r.readParked(ctx)
}

// readUnstopped reads without stopping anything: a live target whose
// goroutines each are read consistent in themselves, or a core (core set)
// whose threads' registers are in Options.Threads.
func (r *reader) readUnstopped(ctx context.Context, core bool) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	r.mode = ModeLive
	if core {
		r.mode = ModeCore
	}
	r.setNow()
	list, err := r.readList()
	if err != nil {
		return err
	}
	r.readHeads(list)
	if core {
		r.readRunning(r.opts.Threads)
		r.finishRunning()
	}
	return r.readParked(ctx)
}

func (r *reader) setNow() {
	switch {
	case r.opts.Now > 0:
		r.now = r.opts.Now
	case r.opts.Now == 0 && r.mode != ModeCore:
		r.now = monotonicNow()
	}
}

// readRunning reads what only a stopped target shows of its running
// goroutines: their records, their M's thread id, and their stacks from
// their threads' registers.
func (r *reader) readRunning(threads []Thread) {
	byTID := map[uint64]*Thread{}
	for i := range threads {
		byTID[uint64(threads[i].TID)] = &threads[i]
	}
	for _, g := range r.gs {
		if r.status(&g.rec) != r.l.Status.Running {
			continue
		}
		g.running = true
		r.stats.Running++
		full := make([]byte, r.full)
		if err := r.mem.read(g.rec.addr, full); err != nil {
			r.notWalked(g, "its record could not be read")
			continue
		}
		g.rec.decodeRest(&r.l.G, full)
		if g.rec.m != 0 {
			g.m = r.readM(g.rec.m)
		}
		th := byTID[g.m.procid]
		rec := &g.rec
		switch {
		case g.m.vdsoSP != 0 && g.m.vdsoSP >= rec.stackLo && g.m.vdsoSP < rec.stackHi:
			// In a VDSO call from the goroutine's stack: the runtime
			// saved where it came from. (One from the scheduler on the
			// system stack, about to run the goroutine, is not its.)
			g.pc, g.sp = g.m.vdsoPC, g.m.vdsoSP
		case th != nil && th.SP >= rec.stackLo && th.SP < rec.stackHi:
			g.pc, g.sp, g.lr, g.trap = th.PC, th.SP, th.LR, true
			if f := r.bin.tab.findFunc(th.PC - r.bias); f.valid() && strings.TrimPrefix(r.funcName(f.nameOff), "runtime.") == "gogo" {
				// Switching to the goroutine: SP is its saved one already,
				// and it goes on at its saved pc (which gogo keeps).
				g.pc, g.lr, g.trap = rec.schedPC, rec.schedLR, false
			}
		case rec.schedSP != 0 && rec.schedSP >= rec.stackLo && rec.schedSP < rec.stackHi:
			// On the system stack (systemstack saved its place).
			g.pc, g.sp, g.lr = rec.schedPC, rec.schedSP, rec.schedLR
		default:
			// Its thread is in a signal handler, or not among those
			// stopped.
			where := fmt.Sprintf("the registers of its thread %d were not read", g.m.procid)
			if th != nil {
				where = "its thread stood at " + r.where(th.PC) + ", neither on its stack nor where it had saved its place"
			}
			r.notWalked(g, where)
			continue
		}
		if rec.stackHi-g.sp > maxStack {
			r.notWalked(g, "its stack is larger than 1 GiB")
			continue
		}
		g.stk = stackMem{base: g.sp, b: make([]byte, min(rec.stackHi-g.sp, stackRead)), hi: rec.stackHi, r: r}
		if err := r.mem.read(g.sp, g.stk.b); err != nil {
			r.notWalked(g, "its stack could not be read")
			continue
		}
		g.walk = true
	}
}

// notWalked writes a running goroutine as the runtime writes one running
// on another thread, without its stack, and says why in a warning.
func (r *reader) notWalked(g *gState, why string) {
	g.unavailable = true
	r.warn(g.rec.goid, fmt.Sprintf("goroutine %d: running, %s: written without its stack", g.rec.goid, why))
}

// finishRunning makes the routines of the goroutines read from their
// threads, once the target runs again.
func (r *reader) finishRunning() {
	for _, g := range r.gs {
		if g.running {
			r.finish(g)
		}
	}
}

// readM reads the fields of a runtime.m the reader needs.
func (r *reader) readM(addr uint64) mInfo {
	m := mInfo{addr: addr}
	l := &r.l.M
	lo := min(l.ProcID, l.ID, l.VdsoSP, l.VdsoPC)
	hi := max(l.ProcID, l.ID, l.VdsoSP, l.VdsoPC) + 8
	b := make([]byte, hi-lo)
	if err := r.mem.read(addr+uint64(lo), b); err != nil {
		m.id = -1
		return m
	}
	m.procid = leUint64(b[l.ProcID-lo:])
	m.id = int64(leUint64(b[l.ID-lo:]))
	m.vdsoSP = leUint64(b[l.VdsoSP-lo:])
	m.vdsoPC = leUint64(b[l.VdsoPC-lo:])
	return m
}

// readParked reads the goroutines that are not running: each one's record
// and stack in one scattered read, then its head again; a goroutine whose
// three reads agree with each other and with the head it was expected at
// is done. One that moved is read again from where it is now, up to
// Options.Retries more times.
func (r *reader) readParked(ctx context.Context) error {
	var pending []*gState
	for _, g := range r.gs {
		if !g.running {
			pending = append(pending, g)
		}
	}
	for try := 0; len(pending) > 0; try++ {
		if err := checkContext(ctx); err != nil {
			return err
		}
		if try > max(r.opts.Retries, 0) {
			for _, g := range pending {
				g.unavailable = true
				// Running when last seen: written as the runtime writes a
				// goroutine on another thread.
				g.running = r.runningNow(&g.rec)
				r.stats.Skipped++
				r.kept = append(r.kept, int64(g.rec.goid))
				r.finish(g)
			}
			break
		}
		var again []*gState
		for start := 0; start < len(pending); {
			end, bytes := start, 0
			for end < len(pending) && end-start < batchGoroutines && (bytes < batchBytes || end == start) {
				bytes += r.full + r.stackSpan(pending[end])
				end++
			}
			again = append(again, r.readBatch(pending[start:end])...)
			start = end
		}
		if try == 0 {
			r.stats.Retried += len(again)
		}
		pending = again
	}
	return nil
}

// stackSpan returns how many bytes of g's stack a read takes: from where
// its walk starts to the top.
func (r *reader) stackSpan(g *gState) int {
	if _, sp, _, _, ok := startOf(&g.rec); ok && !r.runningNow(&g.rec) {
		return int(min(g.rec.stackHi-sp, stackRead))
	}
	return 0
}

// runningNow reports whether a head says its goroutine is on a thread,
// where its stack cannot be read without stopping it.
func (r *reader) runningNow(rec *gRecord) bool { return r.status(rec) == r.l.Status.Running }

// readBatch reads a batch of goroutines and returns those that moved. Each
// goroutine is read as three ranges one after the other in one scattered
// read: its record, its stack, its head again, so that it had no time to
// run and park again at the same place unnoticed.
func (r *reader) readBatch(batch []*gState) (moved []*gState) {
	var rd gather
	idx := make([][3]int, len(batch))
	for i, g := range batch {
		idx[i] = [3]int{rd.add(g.rec.addr, r.full, false), -1, -1}
		if n := r.stackSpan(g); n > 0 {
			_, sp, _, _, _ := startOf(&g.rec)
			idx[i][1] = rd.add(sp, n, false)
		}
		idx[i][2] = rd.add(g.rec.addr, r.head, false)
	}
	r.buf = rd.read(r.mem, r.buf)
	for i, g := range batch {
		rb, hb := rd.bytes(idx[i][0]), rd.bytes(idx[i][2])
		var sb []byte
		if idx[i][1] >= 0 {
			sb = rd.bytes(idx[i][1])
		}
		if rb == nil || hb == nil {
			g.unavailable = true
			r.stats.Skipped++
			r.warn(g.rec.goid, fmt.Sprintf("goroutine %d: its record could not be read", g.rec.goid))
			continue
		}
		var a, b gRecord
		a.decodeHead(&r.l.G, rb)
		b.decodeHead(&r.l.G, hb)
		a.addr, b.addr = g.rec.addr, g.rec.addr
		if !sameHead(&g.rec, &a) || !sameHead(&a, &b) {
			// It moved: read it again from where it is now. What does not
			// change while it lives (creator, labels) is kept.
			g.moved = true
			g.rec = b
			g.rec.decodeRest(&r.l.G, rb)
			if r.isDead(&b) || b.goid != a.goid {
				g.gone = true
				continue
			}
			moved = append(moved, g)
			continue
		}
		waitSince := g.rec.waitSince
		g.rec = a
		g.rec.waitSince = max(waitSince, a.waitSince)
		g.rec.decodeRest(&r.l.G, rb)
		if r.runningNow(&a) {
			// Running where it cannot be read (the runtime prints
			// "goroutine running on other thread; stack unavailable").
			g.running, g.unavailable = true, true
			r.stats.Running++
			continue
		}
		pc, sp, lr, isSyscall, ok := startOf(&a)
		if !ok || sb == nil {
			g.unavailable = true
			r.stats.Skipped++
			r.warn(a.goid, fmt.Sprintf("goroutine %d: its stack could not be read", a.goid))
			continue
		}
		g.pc, g.sp, g.lr, g.isSyscall = pc, sp, lr, isSyscall
		g.stk = stackMem{base: sp, b: sb, hi: a.stackHi, r: r}
		g.walk = true
		r.finish(g)
	}
	return moved
}
