package analyze

import (
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// A timeline used out of order or fed routines built by hand without a
// stack reports what it has and does not panic.
func TestTimelineToleratesMisuse(t *testing.T) {
	tl := NewTimeline(TimelineOptions{})
	if rep := tl.Report(); len(rep.Snapshots) != 0 || rep.StuckTotal != 0 || rep.Stuck == nil || rep.Busiest == nil || rep.Groups == nil {
		t.Errorf("empty timeline: %+v", rep)
	}
	r := &stack.Routine{ID: 7, State: "sync.Mutex.Lock"} // no Stack, no BeginSnapshot
	tl.AddRoutine(r)
	tl.EndSnapshot(&stack.Dump{})
	if rep := tl.Report(); len(rep.Snapshots) != 1 || rep.StuckTotal != 0 {
		t.Errorf("one snapshot is not enough to be stuck: %+v", rep)
	}
	tl.Add(&stack.Dump{Routines: []*stack.Routine{r}})
	rep := tl.Report()
	if rep.StuckTotal != 1 || len(rep.Stuck) != 1 || rep.Stuck[0].IDs[0] != 7 || rep.Stuck[0].Frame != nil {
		t.Errorf("routine 7 unchanged in two snapshots: %+v", rep.Stuck)
	}
	tl.EndSnapshot(&stack.Dump{}) // an empty snapshot: 7 is gone
	rep = tl.Report()
	if s := rep.Snapshots[2]; s.Gone != 1 || s.GoneIDs[0] != 7 || rep.StuckTotal != 0 {
		t.Errorf("after an empty snapshot: %+v, %d stuck", s, rep.StuckTotal)
	}
}

// TestTimelineListsSmallestIDs feeds a real 315-goroutine dump (the demo
// service's) after an empty snapshot and before one: the new and gone ids
// listed are the smallest ten, not the first ten the dump or a map gives.
func TestTimelineListsSmallestIDs(t *testing.T) {
	dumps := readDumps(t, "../testdata/go/demo_go126.txt")
	ids := routineIDs(dumps[0])
	slices.Sort(ids)
	if len(ids) <= timelineIDs || slices.IsSorted(routineIDs(dumps[0])) {
		t.Fatalf("the dump has %d goroutines, sorted %v: want more than %d, not in id order", len(ids), slices.IsSorted(routineIDs(dumps[0])), timelineIDs)
	}
	want := ids[:timelineIDs]
	for range 5 { // map order differs from run to run
		tl := NewTimeline(TimelineOptions{})
		tl.Add(&stack.Dump{})
		tl.Add(dumps[0])
		tl.Add(&stack.Dump{})
		rep := tl.Report()
		if got := rep.Snapshots[1].NewIDs; !slices.Equal(got, want) {
			t.Fatalf("new ids %v, want the smallest %v", got, want)
		}
		if got := rep.Snapshots[2].GoneIDs; !slices.Equal(got, want) {
			t.Fatalf("gone ids %v, want the smallest %v", got, want)
		}
	}
}

func routineIDs(d *stack.Dump) []int64 {
	var ids []int64
	for _, r := range d.Routines {
		ids = append(ids, r.ID)
	}
	return ids
}
