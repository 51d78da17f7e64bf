package aggregate

import "github.com/stackdump/stackdump/stack"

// Routines sums the counts of one dump's routines per distinct
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
type Routines struct {
	byState bool // tell states apart (pprof); debug=1 and folded have none
	index   map[aggregateKey]*Entry
	Entries []*Entry
	Total   int64
	leaked  int64 // count of Leaked routines
	// waited is set when a routine had WaitMinutes; threads when one was a
	// JVM thread: the pprof encoder's evidence that wait times are known.
	Waited, Threads bool
}

type aggregateKey struct {
	stack   *stack.Stack
	state   string
	labels  *stack.Label
	nlabels int
	wait    WaitBucket
}

// Entry is one distinct group of routines.
type Entry struct {
	Stack  *stack.Stack
	State  string
	Labels stack.Labels
	Wait   WaitBucket
	// values are the frame values of the first routine of the group that
	// had any; they hold the PCs the grouped formats print.
	Values *stack.FrameValues
	Count  int64
}

// New returns an empty aggregate; byState tells states and wait buckets
// apart (the pprof writer), else only stacks and label sets count.
func New(byState bool) *Routines {
	return &Routines{byState: byState, index: make(map[aggregateKey]*Entry)}
}

// Reset empties the aggregate for the next dump.
func (a *Routines) Reset() {
	clear(a.index)
	clear(a.Entries)
	a.Entries = a.Entries[:0]
	a.Total, a.leaked = 0, 0
	a.Waited, a.Threads = false, false
}

// Add counts r in its group.
func (a *Routines) Add(r *stack.Routine) {
	k := aggregateKey{stack: r.Stack, nlabels: len(r.Labels)}
	if len(r.Labels) > 0 {
		k.labels = &r.Labels[0]
	}
	if a.byState {
		k.state = r.State
		k.wait = WaitBucketOf(r.WaitMinutes)
	}
	a.Waited = a.Waited || r.WaitMinutes > 0
	a.Threads = a.Threads || r.Thread != nil
	e := a.index[k]
	if e == nil {
		e = &Entry{Stack: r.Stack, State: k.state, Labels: r.Labels, Wait: k.wait}
		a.index[k] = e
		a.Entries = append(a.Entries, e)
	}
	if e.Values == nil && r.Values != nil {
		e.Values = r.Values.Clone() // r may be reused (ReadOptions.ReuseRoutines)
	}
	n := RoutineCount(r)
	e.Count += n
	a.Total += n
	if r.Leaked {
		a.leaked += n
	}
}

// AllLeaked reports whether the dump had routines and all were Leaked,
// as in a goroutineleak profile.
func (a *Routines) AllLeaked() bool {
	return len(a.Entries) > 0 && a.leaked == a.Total
}

// RoutineCount returns how many goroutines r stands for. A routine built in
// memory without a Count stands for one.
func RoutineCount(r *stack.Routine) int64 {
	if r.Count == 0 {
		return 1
	}
	return r.Count
}

// Frames returns the entry's frames, innermost first.
func (e *Entry) Frames() []*stack.Frame {
	if e.Stack == nil {
		return nil
	}
	return e.Stack.Frames
}

// PC returns the PC of frame i: the FrameValue.PC a reader kept, else the
// absolute PC of a frame without symbol; 0 when unknown.
func (e *Entry) PC(i int) uint64 {
	if e.Values != nil && i < len(e.Values.Frames) && e.Values.Frames[i].PC != 0 {
		return e.Values.Frames[i].PC
	}
	if f := e.Stack.Frames[i]; f.Func == "" && f.Native {
		return f.Offset
	}
	return 0
}
