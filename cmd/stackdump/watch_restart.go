package main

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"

	"github.com/stackdump/stackdump/stack"
)

// Restarts.
//
// A target that restarted between two snapshots is another process behind
// the same address: comparing it with its predecessor gives "-94 since
// last" and "no group grew" about two processes. Goroutine ids tell them
// apart, from any snapshot that has them (a full capture or the trace
// snapshot; counts have none): the runtime hands ids out in increasing
// order for the life of a process and never reuses one, and a goroutine
// never changes the function it started in. So a snapshot is of a new
// process when
//
//   - its largest goroutine id is under half the largest of the last
//     snapshot that had ids: the ids started again. In one process the
//     largest id does not fall so far, since every capture runs on
//     goroutines the target started for it (the connection's, the
//     request's read-ahead) whose ids are as new as the capture; or
//   - a goroutine id of the lowest few seen in both snapshots stands for
//     a goroutine that started in another function (both stacks whole).
//
// The evidence is said in the table, --json ("restarted") and the metrics
// (stackdump_target_restarts_total), and the target's history (totals,
// groups, leak suspects, the last detailed groups) starts again from that
// snapshot. What the two rules cannot see: a new process that started
// more goroutines before its first snapshot than its predecessor did in
// its whole life, and started its lowest ones in the same functions; and
// a restart seen through counts alone, until the next snapshot with ids
// (a total that fell by half asks for one).

// idSample is how many of the lowest goroutine ids a snapshot keeps with
// the function each started in.
const idSample = 64

// processIDs is what one snapshot showed of its process's goroutine ids.
type processIDs struct {
	maxID int64
	// entries maps each of the idSample lowest ids whose stack is whole to
	// the function the goroutine started in (its outermost frame).
	entries map[int64]string
}

// idCollector gathers a snapshot's processIDs as its routines stream.
type idCollector struct {
	maxID int64
	low   idHeap // the lowest ids seen, the largest of them on top
	// restarted is the evidence that the snapshot is of a new process
	// (restartEvidence), set once its routines are all read.
	restarted string
}

type idEntry struct {
	id    int64
	entry string
}

// idHeap is a max-heap of ids.
type idHeap []idEntry

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i].id > h[j].id }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(idEntry)) }
func (h *idHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// add records one routine: goroutines with an id (JVM threads and grouped
// records are left out).
func (c *idCollector) add(r *stack.Routine) {
	if r.ID <= 0 || r.Thread != nil {
		return
	}
	c.maxID = max(c.maxID, r.ID)
	entry := entryFunc(r.Stack)
	if entry == "" {
		return
	}
	switch {
	case len(c.low) < idSample:
		heap.Push(&c.low, idEntry{r.ID, entry})
	case r.ID < c.low[0].id:
		c.low[0] = idEntry{r.ID, entry}
		heap.Fix(&c.low, 0)
	}
}

// ids is what the collector saw; nil when no routine had an id.
func (c *idCollector) ids() *processIDs {
	if c.maxID == 0 {
		return nil
	}
	p := &processIDs{maxID: c.maxID, entries: make(map[int64]string, len(c.low))}
	for _, e := range c.low {
		p.entries[e.id] = e.entry
	}
	return p
}

// entryFunc is the function a goroutine of stack s started in (its
// outermost frame), or "" when the stack may not be whole: empty, cut at
// its bottom by an old runtime ("...additional frames elided..."), or as
// deep as the runtime's and the tracer's limits.
func entryFunc(s *stack.Stack) string {
	if s == nil || len(s.Frames) == 0 || len(s.Frames) >= 100 || s.Elided && s.ElidedCount == 0 {
		return ""
	}
	return s.Frames[len(s.Frames)-1].Func
}

// restartEvidence says why now is a snapshot of another process than
// prev (the last snapshot with ids), or "" when nothing says so.
func restartEvidence(prev, now *processIDs) string {
	if prev == nil || now == nil {
		return ""
	}
	if now.maxID*2 < prev.maxID {
		return fmt.Sprintf("goroutine ids started again (the largest is %d, was %d)", now.maxID, prev.maxID)
	}
	for _, id := range slices.Sorted(maps.Keys(now.entries)) {
		if was, ok := prev.entries[id]; ok && was != now.entries[id] {
			return fmt.Sprintf("goroutine %d started in %s, and in %s before", id, now.entries[id], was)
		}
	}
	return ""
}
