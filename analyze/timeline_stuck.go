package analyze

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// progressed reports whether a routine seen with the same state and stack
// in the previous snapshot (prev) and in this one (cur) shows that it
// worked in between:
//
//   - a JVM thread whose CPU time (cpu=) advanced by cpuNoise or more, or
//     whose elapsed= went back (another thread under the same ids);
//   - a goroutine that is running or runnable (it is on a CPU or ready
//     for one; Go dumps carry no CPU time to tell a spin from work);
//   - a goroutine whose wait minutes fell (it woke up and blocked again),
//     or, once the runtime stamped its wait, grew by less than the wall
//     clock between the captures (by more than the minute the runtime
//     rounds down).
//
// Wait minutes that grow with the wall clock are no progress.
func (t *Timeline) progressed(prev, cur *tracked) bool {
	if cur.thread {
		if cur.hasCPU && prev.hasCPU && cur.cpu-prev.cpu >= cpuNoise {
			return true
		}
		return cur.hasElapsed && prev.hasElapsed && cur.elapsed < prev.elapsed
	}
	if isOnCPU(cur.state) {
		return true
	}
	if cur.wait < prev.wait {
		return true
	}
	if prev.wait > 0 && !t.prevAt.IsZero() && t.cur != nil && t.cur.CapturedAt.After(t.prevAt) {
		passed := int(t.cur.CapturedAt.Sub(t.prevAt) / time.Minute)
		return cur.wait < prev.wait+passed-1
	}
	return false
}

// isOnCPU reports whether a goroutine state is one of a goroutine on a
// CPU or ready for one.
func isOnCPU(state string) bool {
	return state == "running" || state == "runnable" || strings.HasPrefix(state, "running ")
}

// Why a stuck routine is housekeeping (StuckRow.Why).
const (
	// HousekeepingNoStack: a JVM thread without a Java stack (GC,
	// compiler, VM Thread, Signal Dispatcher, Attach Listener).
	HousekeepingNoStack = "no-java-stack"
	// HousekeepingPool: an idle pool worker, parked in its pool's wait for
	// a task (ThreadPoolExecutor.getTask of the JDK, Tomcat or any other,
	// ForkJoinPool.awaitWork, Jetty's idleJobPoll).
	HousekeepingPool = "idle-pool"
	// HousekeepingPlatform: every frame is the runtime's or the standard
	// library's (dedupe.AppFrame is nil): the JVM's Reference Handler,
	// Finalizer and Common-Cleaner, net/http's idle connections.
	HousekeepingPlatform = "platform"
)

// housekeeping says why tr is the platform's own idle work, or "".
func housekeeping(tr *tracked) string {
	frames := tr.stack.Frames
	if tr.thread && (tr.native || len(frames) == 0) {
		return HousekeepingNoStack
	}
	if len(frames) == 0 {
		return ""
	}
	if isWaitingState(tr) && slices.ContainsFunc(frames, func(f *stack.Frame) bool { return isPoolWait(f.Func) }) {
		return HousekeepingPool
	}
	if dedupe.AppFrame(tr.stack) == nil {
		return HousekeepingPlatform
	}
	return ""
}

// isWaitingState reports whether tr is parked rather than running: a JVM
// thread WAITING or TIMED_WAITING, a goroutine off the CPU.
func isWaitingState(tr *tracked) bool {
	if tr.thread {
		return strings.HasPrefix(tr.state, "WAITING") || strings.HasPrefix(tr.state, "TIMED_WAITING")
	}
	return !isOnCPU(tr.state)
}

// isPoolWait reports whether fn is a thread pool's wait for its next task.
func isPoolWait(fn string) bool {
	return strings.HasSuffix(fn, "ThreadPoolExecutor.getTask") ||
		strings.HasSuffix(fn, ".ForkJoinPool.awaitWork") ||
		strings.HasSuffix(fn, ".idleJobPoll") ||
		strings.HasSuffix(fn, "Pipeline.getTask")
}

// Why an unchanged routine is idle, not stuck (StuckRow.Why of
// TimelineReport.Idle).
const (
	// IdleNetwork: a goroutine in IO wait (network poll, accept).
	IdleNetwork = "network"
	// IdleTimer: asleep, or a JVM thread in TIMED_WAITING.
	IdleTimer = "timer"
	// IdleWait: waiting for an event another routine may cause: a select,
	// a channel no one is shown unable to serve, a condition, a
	// WaitGroup; a JVM thread waiting or parked for a signal.
	IdleWait = "event"
	// IdleNative: a goroutine in a system call, a JVM thread RUNNABLE in
	// native code (I/O, a poll) that used no CPU time.
	IdleNative = "native"
)

// stuckWhy says whether an unchanged routine is stuck: "" when it is
// idle, else the evidence.
func (t *Timeline) stuckWhy(tr *tracked) string {
	switch {
	case tr.deadlocked:
		return "deadlocked"
	case tr.class == waitLock:
		return "lock"
	case tr.dead:
		return "no-sender"
	case !tr.thread && isChanWait(tr.state):
		// Parked on a channel or in a select while its group only grew:
		// what it waits for did not come while more joined it.
		if _, grew := t.grewAround(tr); grew {
			return "grows"
		}
	}
	return ""
}

// idleWhy says what an idle unchanged routine waits for.
func idleWhy(tr *tracked) string {
	if tr.thread {
		switch {
		case strings.HasPrefix(tr.state, "TIMED_WAITING"):
			return IdleTimer
		case strings.HasPrefix(tr.state, "RUNNABLE"):
			return IdleNative
		}
		return IdleWait
	}
	if w := outsideWait(tr.state, nil); w != "" {
		return w
	}
	return IdleWait
}

// stuckRows groups the routines of the last snapshot whose run of
// snapshots without change or progress is two long or more, by state,
// stack, first snapshot of the run and kind: rows of stuck routines
// (stuckWhy), of housekeeping ones, and of idle ones, each with the
// number of routines in all of them. A routine whose run lasted less than
// MinStuck between captures is idle, whatever it waits for.
func (t *Timeline) stuckRows(last time.Time) (stuck []StuckRow, stuckTotal int, house []StuckRow, houseTotal int, idle []StuckRow, idleTotal int) {
	type rowKey struct {
		state string
		hash  uint64
		since int
		why   string
		list  int // 0 stuck, 1 housekeeping, 2 idle
	}
	lastIndex := t.seq - 1
	rows := map[rowKey]*StuckRow{}
	members := map[rowKey][]*tracked{}
	for _, tr := range t.live {
		if tr.since >= lastIndex {
			continue // changed or progressed into the last snapshot
		}
		short := !tr.sinceAt.IsZero() && !last.IsZero() && last.Sub(tr.sinceAt) < t.opts.MinStuck
		k := rowKey{state: tr.state, hash: tr.hash, since: tr.since}
		switch why := t.stuckWhy(tr); {
		case why == "deadlocked", why != "" && !short:
			k.why = why
			stuckTotal++
		case housekeeping(tr) != "":
			k.why, k.list = housekeeping(tr), 1
			houseTotal++
		default:
			k.why, k.list = idleWhy(tr), 2
			idleTotal++
		}
		members[k] = append(members[k], tr)
		if rows[k] == nil {
			row := &StuckRow{State: tr.state, Frame: frameRef(whereFrame(tr.stack)), Since: tr.since, Snapshots: lastIndex - tr.since + 1, Why: k.why}
			for _, f := range tr.stack.Frames {
				row.Stack = append(row.Stack, *frameRef(f))
			}
			if !tr.sinceAt.IsZero() && last.After(tr.sinceAt) {
				row.Observed = last.Sub(tr.sinceAt)
			}
			rows[k] = row
		}
	}
	for k, row := range rows {
		ms := members[k]
		slices.SortFunc(ms, func(a, b *tracked) int {
			return cmp.Or(cmp.Compare(a.key.id, b.key.id), cmp.Compare(a.key.osid, b.key.osid), strings.Compare(a.key.name, b.key.name))
		})
		row.Count = len(ms)
		for _, m := range ms {
			row.WaitMinutes = max(row.WaitMinutes, m.wait)
			if len(row.IDs) < timelineIDs && m.key.id != 0 {
				row.IDs = append(row.IDs, m.key.id)
			}
			if len(row.Names) < timelineIDs && m.key.name != "" {
				row.Names = append(row.Names, m.key.name)
			}
		}
		row.For = max(row.Observed, time.Duration(row.WaitMinutes)*time.Minute)
		switch k.list {
		case 0:
			stuck = append(stuck, *row)
		case 1:
			house = append(house, *row)
		default:
			idle = append(idle, *row)
		}
	}
	sortStuck(stuck)
	sortStuck(house)
	sortStuck(idle)
	if stuck == nil {
		stuck = []StuckRow{}
	}
	if house == nil {
		house = []StuckRow{}
	}
	if idle == nil {
		idle = []StuckRow{}
	}
	return stuck, stuckTotal, house, houseTotal, idle, idleTotal
}

// sortStuck orders rows longest stuck first, then largest; rows without
// frames come after those that show where they are.
func sortStuck(rows []StuckRow) {
	noFrames := func(r StuckRow) int {
		if len(r.Stack) == 0 {
			return 1
		}
		return 0
	}
	slices.SortFunc(rows, func(a, b StuckRow) int {
		return cmp.Or(cmp.Compare(noFrames(a), noFrames(b)), cmp.Compare(b.For, a.For), cmp.Compare(b.Snapshots, a.Snapshots),
			cmp.Compare(b.Count, a.Count), strings.Compare(a.Why, b.Why), strings.Compare(a.State, b.State), cmpFrames(a.Stack, b.Stack))
	})
}

// judgeSnapshot marks, once a snapshot's routines are all in, the
// routines of its deadlocks and the goroutines waiting on a channel no
// one can serve, and keeps its deadlocks as findings.
func (t *Timeline) judgeSnapshot(d *stack.Dump) {
	t.deadlocks = nil
	if t.objs == nil {
		return
	}
	lo := t.opts.Leak
	for _, c := range t.objs.cycles() {
		t.deadlocks = append(t.deadlocks, goDeadlockFinding(c))
		for _, st := range c.steps {
			if tr := t.next[threadKey{id: st.waiter.id}]; tr != nil {
				tr.deadlocked = true
			}
		}
	}
	alone := map[*stack.Frame]int64{}
	for _, tr := range t.next {
		if tr.thread || tr.class != waitEvent || tr.object == 0 {
			continue
		}
		w := t.objs.waits[tr.object]
		if w == nil || !t.objs.dead(tr.object) {
			continue
		}
		if w.n >= int64(lo.LeakMinCount) {
			tr.dead = true
			continue
		}
		place := dedupe.NameFrame(tr.stack)
		n, ok := alone[place]
		if !ok {
			n = t.objs.alone(place)
			alone[place] = n
		}
		tr.dead = w.n == 1 && n >= int64(lo.LeakMinCount)
	}
	if len(t.locks.threads) == 0 && len(d.Routines) == 0 && len(d.Preamble) == 0 {
		return
	}
	rep := t.locks.Report(d)
	mark := func(r *stack.Routine, deadlocked bool) {
		k, ok := routineKey(r)
		if !ok {
			return
		}
		k.tid = strings.Clone(k.tid)
		if tr := t.next[k]; tr != nil {
			if deadlocked {
				tr.deadlocked = true
			}
			tr.class = waitLock
		}
	}
	for _, dl := range rep.Deadlocks {
		for _, r := range dl.Routines {
			mark(r, true)
		}
	}
	reported := map[string]bool{}
	for _, dl := range rep.Reported {
		for _, th := range dl.Threads {
			reported[th.Name] = true
		}
	}
	for _, tr := range t.next {
		if tr.thread && reported[tr.key.name] {
			tr.deadlocked = true
		}
	}
	for _, lk := range rep.Blockers {
		for _, r := range lk.Blocked {
			mark(r, false)
		}
	}
	for _, f := range jvmFindings(rep, lo) {
		if f.Kind == FindingDeadlock {
			t.deadlocks = append(t.deadlocks, f)
		}
	}
}
