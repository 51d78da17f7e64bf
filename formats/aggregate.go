package formats

// routineAggregate sums the counts of one dump's routines per distinct
// (stack, state, labels), for the encoders of grouped formats (debug=1,
// pprof, folded), which can write nothing before the dump's end: the
// debug=1 header and the pprof tables need every routine first. Its memory
// follows the number of distinct groups, not of routines.
//
// The pprof encoder also tells apart wait-time buckets (pprofWaitBucket),
// so that a sample's "wait" label holds for every goroutine it counts.
//
// Stacks are compared by pointer and label sets by their first element,
// which is exact for the interned stacks and labels of a [Table]; equal
// stacks or labels that were not interned end up in separate entries,
// which the encoders merge again when they render them.
type routineAggregate struct {
	byState bool // tell states apart (pprof); debug=1 and folded have none
	index   map[aggregateKey]*aggregateEntry
	entries []*aggregateEntry
	total   int64
	leaked  int64 // count of Leaked routines
	// waited is set when a routine had WaitMinutes; threads when one was a
	// JVM thread: the pprof encoder's evidence that wait times are known.
	waited, threads bool
}

type aggregateKey struct {
	stack   *Stack
	state   string
	labels  *Label
	nlabels int
	wait    pprofWaitBucket
}

// aggregateEntry is one distinct group of routines.
type aggregateEntry struct {
	stack  *Stack
	state  string
	labels Labels
	wait   pprofWaitBucket
	// values are the frame values of the first routine of the group that
	// had any; they hold the PCs the grouped formats print.
	values *FrameValues
	count  int64
}

func newRoutineAggregate(byState bool) *routineAggregate {
	return &routineAggregate{byState: byState, index: make(map[aggregateKey]*aggregateEntry)}
}

// reset empties the aggregate for the next dump.
func (a *routineAggregate) reset() {
	clear(a.index)
	clear(a.entries)
	a.entries = a.entries[:0]
	a.total, a.leaked = 0, 0
	a.waited, a.threads = false, false
}

// add counts r in its group.
func (a *routineAggregate) add(r *Routine) {
	k := aggregateKey{stack: r.Stack, nlabels: len(r.Labels)}
	if len(r.Labels) > 0 {
		k.labels = &r.Labels[0]
	}
	if a.byState {
		k.state = r.State
		k.wait = waitBucketOf(r.WaitMinutes)
	}
	a.waited = a.waited || r.WaitMinutes > 0
	a.threads = a.threads || r.Thread != nil
	e := a.index[k]
	if e == nil {
		e = &aggregateEntry{stack: r.Stack, state: k.state, labels: r.Labels, wait: k.wait}
		a.index[k] = e
		a.entries = append(a.entries, e)
	}
	if e.values == nil && r.Values != nil {
		e.values = r.Values.clone() // r may be reused (ReadOptions.ReuseRoutines)
	}
	n := routineCount(r)
	e.count += n
	a.total += n
	if r.Leaked {
		a.leaked += n
	}
}

// allLeaked reports whether the dump had routines and all were Leaked,
// as in a goroutineleak profile.
func (a *routineAggregate) allLeaked() bool {
	return len(a.entries) > 0 && a.leaked == a.total
}

// routineCount returns how many goroutines r stands for. A routine built in
// memory without a Count stands for one.
func routineCount(r *Routine) int64 {
	if r.Count == 0 {
		return 1
	}
	return r.Count
}

// frames returns the entry's frames, innermost first.
func (e *aggregateEntry) frames() []*Frame {
	if e.stack == nil {
		return nil
	}
	return e.stack.Frames
}

// pc returns the PC of frame i: the FrameValue.PC a reader kept, else the
// absolute PC of a frame without symbol; 0 when unknown.
func (e *aggregateEntry) pc(i int) uint64 {
	if e.values != nil && i < len(e.values.Frames) && e.values.Frames[i].PC != 0 {
		return e.values.Frames[i].PC
	}
	if f := e.stack.Frames[i]; f.Func == "" && f.Native {
		return f.Offset
	}
	return 0
}
