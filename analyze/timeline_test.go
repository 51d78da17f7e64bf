package analyze

import (
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// A timeline used out of order or fed routines built by hand without a
// stack reports what it has and does not panic.
func TestTimelineToleratesMisuse(t *testing.T) {
	tl := NewTimeline(TimelineOptions{})
	if rep := tl.Report(); len(rep.Snapshots) != 0 || rep.StuckTotal != 0 || rep.Stuck == nil || rep.Busiest == nil || rep.Groups == nil {
		t.Errorf("empty timeline: %+v", rep)
	}
	r := &formats.Routine{ID: 7, State: "chan receive"} // no Stack, no BeginSnapshot
	tl.AddRoutine(r)
	tl.EndSnapshot(&formats.Dump{})
	if rep := tl.Report(); len(rep.Snapshots) != 1 || rep.StuckTotal != 0 {
		t.Errorf("one snapshot is not enough to be stuck: %+v", rep)
	}
	tl.Add(&formats.Dump{Routines: []*formats.Routine{r}})
	rep := tl.Report()
	if rep.StuckTotal != 1 || len(rep.Stuck) != 1 || rep.Stuck[0].IDs[0] != 7 || rep.Stuck[0].Frame != nil {
		t.Errorf("routine 7 unchanged in two snapshots: %+v", rep.Stuck)
	}
	tl.EndSnapshot(&formats.Dump{}) // an empty snapshot: 7 is gone
	rep = tl.Report()
	if s := rep.Snapshots[2]; s.Gone != 1 || s.GoneIDs[0] != 7 || rep.StuckTotal != 0 {
		t.Errorf("after an empty snapshot: %+v, %d stuck", s, rep.StuckTotal)
	}
}
