package tracesnap

import (
	"errors"
	"fmt"
)

// The ordering of a generation's events.
//
// Each thread (M) writes its own batches, in order; the events of
// different threads are merged by timestamp, except that an event whose
// preconditions are not met yet (a goroutine started before the event
// that made it runnable, a proc started before it was stopped…) waits
// while another thread's events go first. This is x/exp/trace's algorithm
// (order.go): the same per-goroutine, per-proc and per-thread state,
// sequence numbers and preconditions, so that events come out in the same
// order. What x/exp/trace only checks (time ranges, task and region
// nesting) is not checked here: a trace it rejects for those may be read.

const (
	noThread = -1
	noProc   = -1
)

// rawEvent is a timed event as decoded, with its scheduling context.
type rawEvent struct {
	typ  uint8
	time int64
	args [4]uint64
	ctx  schedCtx
	t    *tables
}

type schedCtx struct{ G, P, M int64 }

type seqCounter struct{ gen, seq uint64 }

func (a seqCounter) succeeds(b seqCounter) bool { return a.gen == b.gen && a.seq == b.seq+1 }

type gState struct {
	status uint8 // wire status
	seq    seqCounter
}

type pState struct {
	status uint8
	seq    seqCounter
}

type mState struct{ g, p int64 }

type gcState uint8

const (
	gcUndetermined gcState = iota
	gcNotRunning
	gcRunning
)

// ordering is the scheduler state the events are checked against.
type ordering struct {
	gs         goTable[gState]
	ps         map[int64]*pState
	ms         map[int64]*mState
	gcSeq      uint64
	gc         gcState
	initialGen uint64
	queue      queue
}

func newOrdering() *ordering {
	return &ordering{ps: make(map[int64]*pState), ms: make(map[int64]*mState)}
}

// thread returns the state of thread m, created if new (as x/exp/trace
// does, even when the event then cannot advance).
func (o *ordering) thread(m int64) *mState {
	ms, ok := o.ms[m]
	if !ok {
		ms = &mState{g: NoGoroutine, p: noProc}
		o.ms[m] = ms
	}
	return ms
}

// advance tries to apply ev, read from thread m (whose state is ms, nil
// for noThread), in generation gen. It reports whether ev could be
// applied; applied events (and those they imply) are queued.
func (o *ordering) advance(ev *rawEvent, ms *mState, m int64, gen uint64) (bool, error) {
	if o.initialGen == 0 {
		o.initialGen = gen
	}
	cur := schedCtx{G: NoGoroutine, P: noProc, M: m}
	if ms != nil {
		cur.P, cur.G = ms.p, ms.g
	}
	next, ok, err := o.apply(ev, m, gen, cur)
	if err == nil && ok && ms != nil {
		ms.p, ms.g = next.P, next.G
	}
	return ok, err
}

type constraint uint8

const (
	mustNotHave constraint = iota
	mayHave
	mustHave
)

type reqs struct{ m, p, g constraint }

var userGo = reqs{mustHave, mustHave, mustHave}

func check(c schedCtx, r reqs) error {
	has := func(v int64, want constraint, what string) error {
		switch {
		case want == mustHave && v == -1:
			return fmt.Errorf("expected a %s but had none", what)
		case want == mustNotHave && v != -1:
			return fmt.Errorf("expected no %s but had one", what)
		}
		return nil
	}
	if err := has(c.M, r.m, "thread"); err != nil {
		return err
	}
	if err := has(c.P, r.p, "proc"); err != nil {
		return err
	}
	return has(c.G, r.g, "goroutine")
}

func (o *ordering) push(ev *rawEvent, c schedCtx) {
	e := o.queue.add()
	*e = *ev
	e.ctx = c
}

// pushNew queues an event the ordering implies (x/exp/trace's makeEvent).
func (o *ordering) pushNew(t *tables, c schedCtx, typ uint8, time int64, args ...uint64) {
	e := o.queue.add()
	*e = rawEvent{typ: typ, time: time, ctx: c, t: t}
	copy(e.args[:], args)
}

var errBadType = errors.New("bad event type")

func (o *ordering) apply(ev *rawEvent, m int64, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	switch ev.typ {
	case evGoStatus, evGoStatusStack:
		return o.goStatus(ev, gen, cur)
	case evProcStatus:
		return o.procStatus(ev, gen, cur)
	case evProcStart:
		return o.procStart(ev, gen, cur)
	case evProcStop:
		return o.procStop(ev, cur)
	case evProcSteal:
		return o.procSteal(ev, gen, cur)
	case evGoCreate, evGoCreateBlocked:
		return o.goCreate(ev, gen, cur)
	case evGoCreateSyscall:
		return o.goCreateSyscall(ev, gen, cur)
	case evGoStart:
		return o.goStart(ev, gen, cur)
	case evGoDestroy, evGoStop, evGoBlock:
		return o.goStopExec(ev, cur)
	case evGoDestroySyscall:
		return o.goDestroySyscall(ev, cur)
	case evGoUnblock:
		return o.goUnblock(ev, gen, cur)
	case evGoSwitch, evGoSwitchDestroy:
		return o.goSwitch(ev, gen, cur)
	case evGoSyscallBegin:
		return o.goSyscallBegin(ev, gen, cur)
	case evGoSyscallEnd:
		return o.goSyscallEnd(ev, cur)
	case evGoSyscallEndBlocked:
		return o.goSyscallEndBlocked(ev, cur)
	case evSTWBegin, evGCMarkAssistBegin, evSTWEnd, evGCMarkAssistEnd, evUserRegionBegin, evUserRegionEnd:
		// Ranges and regions of the running goroutine.
		if err := check(cur, userGo); err != nil {
			return cur, false, err
		}
		if o.gs.get(cur.G) == nil {
			return cur, false, fmt.Errorf("event type %d for goroutine %d, which is not known", ev.typ, cur.G)
		}
	case evGCMarkAssistActive:
		if o.gs.get(int64(ev.args[0])) == nil {
			return cur, false, fmt.Errorf("mark assist of goroutine %d, which is not known", int64(ev.args[0]))
		}
	case evGCActive, evGCBegin, evGCEnd:
		return o.gcEvent(ev, gen, cur)
	case evGCSweepActive:
		if _, ok := o.ps[int64(ev.args[0])]; !ok {
			return cur, false, fmt.Errorf("sweep of proc %d, which is not known", int64(ev.args[0]))
		}
	case evGCSweepBegin, evGCSweepEnd, evHeapAlloc, evHeapGoal:
		if err := check(cur, reqs{mustHave, mustHave, mayHave}); err != nil {
			return cur, false, err
		}
	case evProcsChange, evGoLabel, evUserLog, evUserTaskBegin, evUserTaskEnd:
		if err := check(cur, userGo); err != nil {
			return cur, false, err
		}
	default:
		if ev.typ < evSpan || ev.typ > evGoroutineStackFree {
			return cur, false, fmt.Errorf("%w %d", errBadType, ev.typ)
		}
		if err := check(cur, reqs{mustHave, mayHave, mayHave}); err != nil {
			return cur, false, err
		}
	}
	o.push(ev, cur)
	return cur, true, nil
}

func (o *ordering) goStatus(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	gid, mid, status := int64(ev.args[0]), int64(ev.args[1]), ev.args[2]
	if status >= numWireGoStatus {
		return cur, false, fmt.Errorf("invalid status %d for goroutine %d", status, gid)
	}
	old := statusState[status]
	if s := o.gs.get(gid); s != nil {
		if uint64(s.status) != status {
			return cur, false, fmt.Errorf("inconsistent status for goroutine %d: %v, then %v", gid, statusState[s.status], statusState[status])
		}
		s.seq = seqCounter{gen, 0}
	} else if gen == o.initialGen {
		*o.gs.add(gid) = gState{status: uint8(status), seq: seqCounter{gen, 0}}
		old = GoUndetermined
	} else {
		return cur, false, fmt.Errorf("status of goroutine %d, not seen before, after the first generation", gid)
	}
	ev.args[2] = uint64(old)<<32 | status
	next := cur
	switch status {
	case wireGoRunning:
		next.G = gid
	case wireGoSyscall:
		if mid == noThread {
			return cur, false, fmt.Errorf("goroutine %d in a syscall without a thread", gid)
		}
		if mid == cur.M {
			if gen != o.initialGen && cur.G != gid {
				return cur, false, fmt.Errorf("inconsistent thread for syscalling goroutine %d: the thread runs goroutine %d", gid, cur.G)
			}
			next.G = gid
			break
		}
		if ms, ok := o.ms[mid]; ok {
			if ms.g != gid {
				return cur, false, fmt.Errorf("inconsistent thread for syscalling goroutine %d: the thread runs goroutine %d", gid, ms.g)
			}
			cur.G = ms.g
		} else {
			o.ms[mid] = &mState{g: gid, p: noProc}
		}
		cur.M = mid
	}
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) procStatus(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	pid, status := int64(ev.args[0]), ev.args[1]
	if status >= numProcStatus {
		return cur, false, fmt.Errorf("invalid status %d for proc %d", status, pid)
	}
	running := status == procRunning || status == procSyscall // the old state, when known
	if s, ok := o.ps[pid]; ok {
		switch {
		case status == procSyscallAbandoned && s.status == procSyscall:
			running = true
			ev.args[1] = procSyscall
		case status == procSyscallAbandoned && s.status == procSyscallAbandoned:
			running = false
		case uint64(s.status) != status:
			return cur, false, fmt.Errorf("inconsistent status for proc %d: %d, then %d", pid, s.status, status)
		}
		s.seq = seqCounter{gen, 0}
	} else {
		o.ps[pid] = &pState{status: uint8(status), seq: seqCounter{gen, 0}}
		running = false
	}
	next := cur
	if status == procRunning || status == procSyscall {
		next.P = pid
	}
	if status == procSyscallAbandoned && running {
		found := false
		for mid, ms := range o.ms {
			if ms.p == pid {
				cur.M, cur.P, cur.G = mid, pid, ms.g
				found = true
			}
		}
		if !found {
			return cur, false, fmt.Errorf("no thread holds proc %d, which is about to be stolen", pid)
		}
	}
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) procStart(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	pid, seq := int64(ev.args[0]), seqCounter{gen, ev.args[1]}
	s, ok := o.ps[pid]
	if !ok || s.status != procIdle || !seq.succeeds(s.seq) || cur.P != noProc {
		return cur, false, nil
	}
	if err := check(cur, reqs{mustHave, mustNotHave, mayHave}); err != nil {
		return cur, false, err
	}
	s.status, s.seq = procRunning, seq
	next := cur
	next.P = pid
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) procStop(ev *rawEvent, cur schedCtx) (schedCtx, bool, error) {
	s, ok := o.ps[cur.P]
	if !ok {
		return cur, false, fmt.Errorf("proc stop for proc %d, which is not known", cur.P)
	}
	if s.status != procRunning && s.status != procSyscall {
		return cur, false, fmt.Errorf("proc stop for proc %d, which is not running", cur.P)
	}
	if err := check(cur, reqs{mustHave, mustHave, mayHave}); err != nil {
		return cur, false, err
	}
	s.status = procIdle
	next := cur
	next.P = noProc
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) procSteal(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	pid, seq := int64(ev.args[0]), seqCounter{gen, ev.args[1]}
	s, ok := o.ps[pid]
	if !ok || (s.status != procSyscall && s.status != procSyscallAbandoned) || !seq.succeeds(s.seq) {
		return cur, false, nil
	}
	if err := check(cur, reqs{mustHave, mayHave, mayHave}); err != nil {
		return cur, false, err
	}
	old := s.status
	s.status, s.seq = procIdle, seq
	if old == procSyscallAbandoned {
		o.push(ev, cur)
		return cur, true, nil
	}
	mid := int64(ev.args[2])
	next := cur
	if mid == cur.M {
		if cur.P != pid {
			return cur, false, fmt.Errorf("thread %d stole proc %d from itself but holds proc %d", mid, pid, cur.P)
		}
		next.P = noProc
		o.push(ev, cur)
		return next, true, nil
	}
	ms, ok := o.ms[mid]
	if !ok {
		return cur, false, fmt.Errorf("proc %d stolen from thread %d, which is not known", pid, mid)
	}
	if ms.p != pid {
		return cur, false, fmt.Errorf("proc %d stolen from thread %d, which holds proc %d", pid, mid, ms.p)
	}
	ms.p = noProc
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) goCreate(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, reqs{mustHave, mustHave, mayHave}); err != nil {
		return cur, false, err
	}
	if s := o.gs.get(cur.G); s != nil && s.status != wireGoRunning {
		return cur, false, fmt.Errorf("goroutine %d creates a goroutine while not running", cur.G)
	}
	id := int64(ev.args[0])
	if o.gs.get(id) != nil {
		return cur, false, fmt.Errorf("goroutine %d created while it exists", id)
	}
	status := uint8(wireGoRunnable)
	if ev.typ == evGoCreateBlocked {
		status = wireGoWaiting
	}
	*o.gs.add(id) = gState{status: status, seq: seqCounter{gen, 0}}
	o.push(ev, cur)
	return cur, true, nil
}

func (o *ordering) goCreateSyscall(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, reqs{mustHave, mayHave, mustNotHave}); err != nil {
		return cur, false, err
	}
	id := int64(ev.args[0])
	if o.gs.get(id) != nil {
		return cur, false, fmt.Errorf("goroutine %d created in a syscall while it exists", id)
	}
	*o.gs.add(id) = gState{status: wireGoSyscall, seq: seqCounter{gen, 0}}
	next := cur
	next.G = id
	o.push(ev, cur)
	return next, true, nil
}

// running returns the state of the goroutine running in cur, which must
// be in status want.
func (o *ordering) running(ev *rawEvent, cur schedCtx, want uint8) (*gState, error) {
	s := o.gs.get(cur.G)
	if s == nil {
		return nil, fmt.Errorf("event type %d for goroutine %d, which does not exist", ev.typ, cur.G)
	}
	if s.status != want {
		return nil, fmt.Errorf("event type %d for goroutine %d, which is %v, not %v", ev.typ, cur.G, statusState[s.status], statusState[want])
	}
	return s, nil
}

func (o *ordering) goStopExec(ev *rawEvent, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, userGo); err != nil {
		return cur, false, err
	}
	s, err := o.running(ev, cur, wireGoRunning)
	if err != nil {
		return cur, false, err
	}
	next := cur
	next.G = NoGoroutine
	switch ev.typ {
	case evGoDestroy:
		o.gs.remove(cur.G)
	case evGoStop:
		s.status = wireGoRunnable
	case evGoBlock:
		s.status = wireGoWaiting
	}
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) goStart(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	id, seq := int64(ev.args[0]), seqCounter{gen, ev.args[1]}
	s := o.gs.get(id)
	if s == nil || s.status != wireGoRunnable || !seq.succeeds(s.seq) {
		return cur, false, nil
	}
	if err := check(cur, reqs{mustHave, mustHave, mustNotHave}); err != nil {
		return cur, false, err
	}
	s.status, s.seq = wireGoRunning, seq
	next := cur
	next.G = id
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) goUnblock(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	id, seq := int64(ev.args[0]), seqCounter{gen, ev.args[1]}
	s := o.gs.get(id)
	if s == nil || s.status != wireGoWaiting || !seq.succeeds(s.seq) {
		return cur, false, nil
	}
	s.status, s.seq = wireGoRunnable, seq
	o.push(ev, cur)
	return cur, true, nil
}

func (o *ordering) goSwitch(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, userGo); err != nil {
		return cur, false, err
	}
	s, err := o.running(ev, cur, wireGoRunning)
	if err != nil {
		return cur, false, err
	}
	id, seq := int64(ev.args[0]), seqCounter{gen, ev.args[1]}
	ns := o.gs.get(id)
	if ns == nil || ns.status != wireGoWaiting || !seq.succeeds(ns.seq) {
		return cur, false, nil
	}
	o.push(ev, cur)
	if ev.typ == evGoSwitch {
		s.status = wireGoWaiting
		o.pushNew(ev.t, cur, evGoBlock, ev.time, 0, 0)
	} else {
		o.gs.remove(cur.G)
		o.pushNew(ev.t, cur, evGoDestroy, ev.time)
	}
	ns.status, ns.seq = wireGoRunning, seq
	next := cur
	next.G = id
	start := cur
	start.G = NoGoroutine
	o.pushNew(ev.t, start, evGoStart, ev.time, uint64(id), ev.args[1])
	return next, true, nil
}

func (o *ordering) goSyscallBegin(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, userGo); err != nil {
		return cur, false, err
	}
	s, err := o.running(ev, cur, wireGoRunning)
	if err != nil {
		return cur, false, err
	}
	s.status = wireGoSyscall
	p, ok := o.ps[cur.P]
	if !ok {
		return cur, false, fmt.Errorf("syscall on proc %d, which is not known", cur.P)
	}
	p.status = procSyscall
	pseq := seqCounter{gen, ev.args[0]}
	if !pseq.succeeds(p.seq) {
		return cur, false, fmt.Errorf("syscall on proc %d out of sequence: %d after %d", cur.P, pseq.seq, p.seq.seq)
	}
	p.seq = pseq
	o.push(ev, cur)
	return cur, true, nil
}

func (o *ordering) goSyscallEnd(ev *rawEvent, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, userGo); err != nil {
		return cur, false, err
	}
	s, err := o.running(ev, cur, wireGoSyscall)
	if err != nil {
		return cur, false, err
	}
	s.status = wireGoRunning
	p, ok := o.ps[cur.P]
	if !ok {
		return cur, false, fmt.Errorf("syscall end on proc %d, which is not known", cur.P)
	}
	if p.status != procSyscall {
		return cur, false, fmt.Errorf("syscall end on proc %d, which is not in a syscall", cur.P)
	}
	p.status = procRunning
	o.push(ev, cur)
	return cur, true, nil
}

func (o *ordering) goSyscallEndBlocked(ev *rawEvent, cur schedCtx) (schedCtx, bool, error) {
	if cur.P != noProc {
		p, ok := o.ps[cur.P]
		if !ok {
			return cur, false, fmt.Errorf("syscall end on proc %d, which is not known", cur.P)
		}
		if p.status == procSyscall {
			return cur, false, nil
		}
	}
	if err := check(cur, reqs{mustHave, mayHave, mustHave}); err != nil {
		return cur, false, err
	}
	s, err := o.running(ev, cur, wireGoSyscall)
	if err != nil {
		return cur, false, err
	}
	next := cur
	next.G = NoGoroutine
	s.status = wireGoRunnable
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) goDestroySyscall(ev *rawEvent, cur schedCtx) (schedCtx, bool, error) {
	if err := check(cur, reqs{mustHave, mayHave, mustHave}); err != nil {
		return cur, false, err
	}
	if _, err := o.running(ev, cur, wireGoSyscall); err != nil {
		return cur, false, err
	}
	o.gs.remove(cur.G)
	next := cur
	next.G = NoGoroutine
	if cur.P != noProc {
		p, ok := o.ps[cur.P]
		if !ok {
			return cur, false, fmt.Errorf("syscall goroutine destroyed on proc %d, which is not known", cur.P)
		}
		if p.status != procSyscall {
			return cur, false, fmt.Errorf("syscall goroutine destroyed on proc %d, which is not in a syscall", cur.P)
		}
		p.status = procSyscallAbandoned
		next.P = noProc
		o.pushNew(ev.t, cur, evProcSteal, ev.time, uint64(cur.P))
	}
	o.push(ev, cur)
	return next, true, nil
}

func (o *ordering) gcEvent(ev *rawEvent, gen uint64, cur schedCtx) (schedCtx, bool, error) {
	seq := ev.args[0]
	switch ev.typ {
	case evGCActive:
		if gen == o.initialGen {
			if o.gc != gcUndetermined {
				return cur, false, errors.New("GCActive in the first generation is not its first GC event")
			}
			o.gcSeq, o.gc = seq, gcRunning
			o.push(ev, cur)
			return cur, true, nil
		}
		if seq != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gc != gcRunning {
			return cur, false, errors.New("GCActive while no GC runs")
		}
	case evGCBegin:
		if o.gc == gcUndetermined {
			o.gcSeq, o.gc = seq, gcRunning
			o.push(ev, cur)
			return cur, true, nil
		}
		if seq != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gc == gcRunning {
			return cur, false, errors.New("GCBegin while a GC runs")
		}
		o.gc = gcRunning
	case evGCEnd:
		if seq != o.gcSeq+1 {
			return cur, false, nil
		}
		if o.gc != gcRunning {
			return cur, false, errors.New("GCEnd while no GC runs")
		}
		o.gc = gcNotRunning
	}
	o.gcSeq = seq
	if err := check(cur, userGo); err != nil {
		return cur, false, err
	}
	o.push(ev, cur)
	return cur, true, nil
}

// queue is a FIFO of events (x/exp/trace's queue).
type queue struct {
	start, end int
	buf        []rawEvent
}

// add appends a slot and returns it.
func (q *queue) add() *rawEvent {
	if q.end-q.start == len(q.buf) {
		n := max(2*len(q.buf), 8)
		grown := make([]rawEvent, n)
		for i := q.start; i < q.end; i++ {
			grown[i-q.start] = q.buf[i%len(q.buf)]
		}
		q.end -= q.start
		q.start = 0
		q.buf = grown
	}
	e := &q.buf[q.end%len(q.buf)]
	q.end++
	return e
}

// pop removes the first event into e, reporting whether there was one.
func (q *queue) pop(e *rawEvent) bool {
	if q.end == q.start {
		return false
	}
	slot := &q.buf[q.start%len(q.buf)]
	*e = *slot
	slot.t = nil
	q.start++
	return true
}
