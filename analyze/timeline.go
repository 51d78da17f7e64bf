package analyze

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// TimelineSchema names the JSON form of a timeline report (docs/timeline.md).
const TimelineSchema = "stackdump-timeline/v1"

// Defaults of [TimelineOptions].
const (
	DefaultTimelineMaxStuck = 50
	DefaultTimelineMinStuck = time.Second
	// cpuNoise is the CPU time a JVM thread may use between two
	// snapshots without that being progress: the JVM's own bookkeeping
	// (safepoints, a spurious wakeup) costs fractions of a millisecond.
	cpuNoise = time.Millisecond
	// timelineIDs is how many ids a snapshot lists as new or gone, and how
	// many ids and names a stuck row lists.
	timelineIDs = 10
)

// TimelineOptions configure a [Timeline]. The zero value means the defaults.
type TimelineOptions struct {
	// Top is how many busiest threads and groups a report lists; 0 means
	// DefaultTop.
	Top int
	// MaxStuck is how many rows of stuck routines, and how many of
	// housekeeping ones, a report lists (TimelineReport.StuckTotal and
	// HousekeepingTotal count them all); 0 means DefaultTimelineMaxStuck.
	MaxStuck int
	// By is the similarity of the groups followed over time; the zero
	// value is dedupe.ByStack.
	By dedupe.By
	// KeepSnapshots bounds how many snapshots the report describes and
	// how many counts each group keeps: the oldest are dropped first. A
	// stuck routine's run may start before the oldest kept snapshot. 0
	// keeps them all.
	KeepSnapshots int
	// MinStuck is how long, between the captures of its run, a routine
	// must have waited without progress to be stuck (when the snapshots
	// have capture times); 0 means DefaultTimelineMinStuck.
	MinStuck time.Duration
	// Leak holds the thresholds of a channel no one can serve
	// (LeakMinCount, LeakLargeCount); the zero value means the defaults.
	Leak Options
}

func (o TimelineOptions) withDefaults() TimelineOptions {
	if o.Top <= 0 {
		o.Top = DefaultTop
	}
	if o.MaxStuck <= 0 {
		o.MaxStuck = DefaultTimelineMaxStuck
	}
	if o.MinStuck <= 0 {
		o.MinStuck = DefaultTimelineMinStuck
	}
	o.Leak = o.Leak.withDefaults()
	return o
}

// Timeline accumulates snapshots of one process, oldest first. It is not
// safe for concurrent use.
type Timeline struct {
	opts TimelineOptions
	seed maphash.Seed

	seq    int // snapshots added so far
	snaps  []TimelineSnapshot
	first  time.Time // capture time of the first snapshot; zero when unknown
	prevAt time.Time // capture time of the last snapshot ended; zero when unknown

	live    map[threadKey]*tracked // routines of the last snapshot
	next    map[threadKey]*tracked // the snapshot being added
	retired []BusyThread           // busiest threads that went away, at most Top
	noIDs   bool                   // a snapshot had routines without ids

	cur   *TimelineSnapshot
	objs  *objectIndex // the current snapshot's objects (Go)
	locks LockWatch    // the current snapshot's threads with lock lines (JVM)
	// deadlocks are the cycles of the last snapshot ended, and reported
	// the deadlocks the JVM reported in it.
	deadlocks []Finding
	// stacks counts the current snapshot's routines per stack hash;
	// stackSeries holds, per stack of the last snapshot, its count in
	// each snapshot up to it (the last maxLeakHistory).
	stacks      map[uint64]int64
	stackSeries map[uint64][]int64
	grouper     *dedupe.Grouper
	hashes      map[*stack.Stack]uint64 // stack hashes of the current snapshot
	groups      map[string]*GroupSeries
	// follow is, per group of groups, what its growth is judged on
	// beside its counts (growth.go); snapInputs says, per kept
	// snapshot, what its input lacked.
	follow     map[string]*groupFollow
	snapInputs []snapInput
	buf        []byte
}

// groupFollow is what a timeline keeps of a group for its growth: its
// longest wait in each kept snapshot, and its members.
type groupFollow struct {
	waits   []int64
	members *members
	outside string
	wait    *FrameRef
	ids     []int64
}

// snapInput says whether a snapshot's input lacked wait minutes, or ids.
type snapInput struct{ noWaits, noIDs bool }

// threadKey identifies a routine across snapshots: the goroutine id, or
// for JVM threads the thread id (#N), the JavaThread address (tid=), the
// OS thread id (nid) and the name.
type threadKey struct {
	id, osid  int64
	name, tid string
}

// tracked is what a timeline keeps of a routine alive in the last snapshot.
type tracked struct {
	key   threadKey
	state string
	stack *stack.Stack
	hash  uint64 // the stack's frames, independent of the Table
	// since is the first snapshot of the run, ending at this one, with
	// the same state and stack and no progress; sinceAt its capture time
	// (zero when unknown).
	since   int
	sinceAt time.Time
	wait    int // wait minutes in the last snapshot
	// thread is set for JVM threads, native for those without a Java
	// stack (GC, compiler, VM threads).
	thread, native bool
	// class is what the routine waits for; object the address of a
	// goroutine's lock or channel (0: not shown).
	class  waitClass
	object uint64
	// deadlocked is set for a routine of a deadlock in the last snapshot,
	// dead for a goroutine waiting on a channel no one can serve.
	deadlocked, dead bool
	cpu, elapsed     time.Duration
	hasCPU           bool
	hasElapsed       bool
	work             time.Duration // sum of CPU time used between snapshots
}

// NewTimeline returns an empty timeline.
func NewTimeline(opts TimelineOptions) *Timeline {
	return &Timeline{
		opts:   opts.withDefaults(),
		seed:   maphash.MakeSeed(),
		live:   make(map[threadKey]*tracked),
		groups: make(map[string]*GroupSeries),
		follow: make(map[string]*groupFollow),
	}
}

// Add adds an in-memory dump (its Routines) as the next snapshot, named
// after its Source.Target.
func (t *Timeline) Add(d *stack.Dump) {
	t.BeginSnapshot("", d)
	for _, r := range d.Routines {
		t.AddRoutine(r)
	}
	t.EndSnapshot(d)
}

// BeginSnapshot starts the next snapshot, described by d's Source and
// called name (a file name; "" means d.Source.Target); its routines follow
// with AddRoutine, and EndSnapshot ends it.
func (t *Timeline) BeginSnapshot(name string, d *stack.Dump) {
	if name == "" {
		name = d.Source.Target
	}
	t.cur = &TimelineSnapshot{
		Index:      t.seq,
		Name:       name,
		Target:     d.Source.Target,
		Kind:       d.Source.Kind,
		CapturedAt: d.Source.CapturedAt,
	}
	if t.seq == 0 {
		t.first = d.Source.CapturedAt
	}
	t.next = make(map[threadKey]*tracked, len(t.live))
	t.stacks = make(map[uint64]int64)
	t.objs = newObjectIndex()
	t.locks = LockWatch{}
	// The groups' ids follow their members (growth.go).
	t.grouper = dedupe.NewGrouper(dedupe.Options{By: t.opts.By})
	if t.hashes == nil {
		t.hashes = make(map[*stack.Stack]uint64)
	}
	clear(t.hashes)
}

// AddRoutine adds a routine of the current snapshot. It keeps only what
// the Table interned (stack, state, name), so routines read with
// ReadOptions.ReuseRoutines may be passed as they stream.
func (t *Timeline) AddRoutine(r *stack.Routine) {
	if t.cur == nil {
		t.BeginSnapshot("", &stack.Dump{})
	}
	t.cur.Total += r.Goroutines()
	t.grouper.Add(r)
	t.objs.add(r)
	t.locks.Add(r)
	k, ok := routineKey(r)
	if !ok {
		t.noIDs = true
		return
	}
	if _, dup := t.next[k]; dup {
		return // the same thread twice in one dump: keep the first
	}
	t.cur.Tracked++
	h := t.stackHash(r.Stack)
	t.stacks[h] += r.Goroutines()
	prev := t.live[k]
	st := r.Stack
	if st == nil {
		st = &stack.Stack{} // a routine built by hand without one
	}
	k.tid = strings.Clone(k.tid) // not a view of a reused routine's header
	tr := &tracked{key: k, state: r.State, stack: st, hash: h, since: t.seq, sinceAt: t.cur.CapturedAt, wait: r.WaitMinutes}
	if th := r.Thread; th != nil {
		tr.thread, tr.native = true, th.Native
		tr.cpu, tr.hasCPU = th.CPU, th.CPU > 0
		tr.elapsed, tr.hasElapsed = th.Elapsed, th.Elapsed > 0
		tr.class = jvmWaitClass(r)
	} else {
		tr.class = goWaitClass(r.State, r.Frames())
		if tr.class == waitEvent || tr.class == waitLock {
			tr.object, _ = waitObject(r, r.Frames())
		}
	}
	if prev != nil {
		if prev.state == r.State && prev.hash == h && !t.progressed(prev, tr) {
			tr.since, tr.sinceAt = prev.since, prev.sinceAt
		}
		tr.work = prev.work
		if tr.hasCPU && prev.hasCPU && tr.cpu >= prev.cpu {
			tr.work += tr.cpu - prev.cpu
		}
	} else if t.seq > 0 {
		t.cur.New++
		t.cur.NewIDs = appendCapped(t.cur.NewIDs, k.id)
	}
	t.next[k] = tr
}

// EndSnapshot ends the current snapshot (d's Truncated and Warnings are
// final now) and returns its description.
func (t *Timeline) EndSnapshot(d *stack.Dump) TimelineSnapshot {
	if t.cur == nil {
		t.BeginSnapshot("", d) // an empty snapshot
	}
	s := t.cur
	s.Truncated = d.Truncated
	if t.seq > 0 {
		for k, tr := range t.live {
			if _, ok := t.next[k]; ok {
				continue
			}
			if d.Truncated {
				// Past the cut, not gone: kept for the next snapshot.
				t.next[k] = tr
				continue
			}
			s.Gone++
			s.GoneIDs = appendCapped(s.GoneIDs, k.id)
			t.retire(tr)
		}
	}
	slices.Sort(s.NewIDs)
	slices.Sort(s.GoneIDs)
	t.judgeSnapshot(d)
	t.addStackCounts()
	t.live, t.next = t.next, nil
	t.prevAt = s.CapturedAt
	missing := missingOf(d)
	t.snapInputs = append(t.snapInputs, snapInput{noWaits: slices.Contains(missing, "wait_minutes"), noIDs: slices.Contains(missing, "ids")})
	t.addGroups(t.grouper.Groups())
	t.grouper, t.cur, t.objs, t.locks = nil, nil, nil, LockWatch{}
	t.snaps = append(t.snaps, *s)
	t.seq++
	if keep := t.opts.KeepSnapshots; keep > 0 && len(t.snaps) > keep {
		t.dropOldest(len(t.snaps) - keep)
	}
	return *s
}

// addStackCounts appends the current snapshot's count of each stack to
// its series, and forgets the stacks it does not have.
func (t *Timeline) addStackCounts() {
	if t.stackSeries == nil {
		t.stackSeries = make(map[uint64][]int64)
	}
	for h := range t.stackSeries {
		if t.stacks[h] == 0 {
			delete(t.stackSeries, h)
		}
	}
	for h, n := range t.stacks {
		s, ok := t.stackSeries[h]
		if !ok {
			s = make([]int64, min(t.seq, maxLeakHistory-1))
		}
		s = append(s, n)
		if len(s) > maxLeakHistory {
			s = s[len(s)-maxLeakHistory:]
		}
		t.stackSeries[h] = s
	}
	t.stacks = nil
}

// grewAround reports whether tr's stack grew over tr's run of snapshots
// (three at least), never falling, by at least max(10, a quarter): the
// goroutines that did not move belong to a group that only grows.
func (t *Timeline) grewAround(tr *tracked) ([]int64, bool) {
	s := t.stackSeries[tr.hash]
	run := t.seq - tr.since
	if run < 3 || len(s) < run {
		return nil, false
	}
	s = s[len(s)-run:]
	rose, fell := seriesTrend(s)
	first, last := s[0], s[len(s)-1]
	return s, rose && !fell && last-first >= max(10, first/4)
}

// Snapshots returns how many snapshots were added.
func (t *Timeline) Snapshots() int { return t.seq }

// routineKey returns the identity of r across snapshots; ok is false when
// r has none (grouped inputs: debug=1, pprof).
func routineKey(r *stack.Routine) (threadKey, bool) {
	k := threadKey{id: r.ID, name: r.Name}
	if r.Thread != nil {
		k.osid = r.Thread.OSID
		k.tid = tidOf(r.Thread.Detail)
	}
	return k, k.id != 0 || k.osid != 0 || k.name != "" || k.tid != ""
}

// tidOf returns the tid= value of a JVM thread header's detail, "" when
// it has none.
func tidOf(detail string) string {
	_, rest, ok := strings.Cut(detail, "tid=")
	if !ok {
		return ""
	}
	if end := strings.IndexByte(rest, ' '); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// stackHash hashes the functions, files and lines of s, so that equal
// stacks read into different Tables hash alike; memoised per snapshot.
func (t *Timeline) stackHash(s *stack.Stack) uint64 {
	if s == nil {
		return 0
	}
	if h, ok := t.hashes[s]; ok {
		return h
	}
	b := t.buf[:0]
	for _, f := range s.Frames {
		b = append(b, f.Func...)
		b = append(b, 0)
		b = append(b, f.File...)
		b = append(b, 0)
		b = binary.AppendVarint(b, int64(f.Line))
	}
	if s.Elided {
		b = append(b, 1)
	}
	t.buf = b
	h := maphash.Bytes(t.seed, b)
	t.hashes[s] = h
	return h
}

// retire keeps a thread that went away among the busiest when it did
// enough work.
func (t *Timeline) retire(tr *tracked) {
	if tr.work <= 0 {
		return
	}
	t.retired = append(t.retired, busyThread(tr, true))
	sortBusy(t.retired)
	if len(t.retired) > t.opts.Top {
		t.retired = t.retired[:t.opts.Top]
	}
}

// appendCapped adds id to ids, which keeps the smallest timelineIDs ids
// seen (in no order): whichever ids come first, and in whatever order a
// map gives them, the list is the same.
func appendCapped(ids []int64, id int64) []int64 {
	if id == 0 {
		return ids
	}
	if len(ids) < timelineIDs {
		return append(ids, id)
	}
	if i := maxIndex(ids); id < ids[i] {
		ids[i] = id
	}
	return ids
}

func maxIndex(ids []int64) int {
	m := 0
	for i, id := range ids {
		if id > ids[m] {
			m = i
		}
	}
	return m
}

func sortBusy(b []BusyThread) {
	slices.SortFunc(b, func(x, y BusyThread) int {
		return cmp.Or(cmp.Compare(y.CPU, x.CPU), cmp.Compare(x.ID, y.ID), cmp.Compare(x.Name, y.Name))
	})
}
