package analyze

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// later returns a copy of d captured at, with each goroutine's wait
// minutes set by wait (from the routine as d has it).
func later(d *stack.Dump, at time.Time, wait func(r *stack.Routine) int) *stack.Dump {
	c := *d
	c.Source.CapturedAt = at
	c.Routines = make([]*stack.Routine, len(d.Routines))
	for i, r := range d.Routines {
		cp := *r
		cp.WaitMinutes = wait(r)
		c.Routines[i] = &cp
	}
	return &c
}

// Wait minutes that grow with the wall clock are no progress; wait
// minutes that fell, or grew less than the clock between two captures,
// say the goroutine woke up in between. The snapshots are the real
// panicparse web server dump (goroutines waiting 2 minutes and more)
// taken again 5 minutes later with its waits moved as each case says.
func TestTimelineWaitMinutes(t *testing.T) {
	d := readDumps(t, "../testdata/corpus/go/panicparse_panicweb_debug2.txt")[0]
	var waiting []int64
	for _, r := range d.Routines {
		if r.WaitMinutes >= 2 && !isOnCPU(r.State) {
			waiting = append(waiting, r.ID)
		}
	}
	if len(waiting) < 10 {
		t.Fatalf("%d goroutines waiting 2 minutes or more", len(waiting))
	}
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// stuckIDs returns the ids of the goroutines the timeline holds stuck
	// (rows list ten ids at most), checked against the report's totals.
	stuckIDs := func(snaps ...*stack.Dump) []int64 {
		tl := NewTimeline(TimelineOptions{})
		for _, s := range snaps {
			tl.Add(s)
		}
		var ids []int64
		for _, tr := range tl.live {
			if tr.since < tl.seq-1 {
				ids = append(ids, tr.key.id)
			}
		}
		if rep := tl.Report(); rep.StuckTotal+rep.HousekeepingTotal+rep.IdleTotal != len(ids) {
			t.Fatalf("%d stuck, %d housekeeping and %d idle reported, %d held", rep.StuckTotal, rep.HousekeepingTotal, rep.IdleTotal, len(ids))
		}
		slices.Sort(ids)
		return ids
	}
	first := later(d, t0, func(r *stack.Routine) int { return r.WaitMinutes })
	grown := later(d, t0.Add(5*time.Minute), func(r *stack.Routine) int {
		if r.WaitMinutes == 0 {
			return 0
		}
		return r.WaitMinutes + 5
	})
	got := stuckIDs(first, grown)
	for _, id := range waiting {
		if !slices.Contains(got, id) {
			t.Errorf("goroutine %d: its wait grew with the clock, yet not stuck", id)
		}
	}
	for _, tc := range []struct {
		name string
		wait func(r *stack.Routine) int
	}{
		{"fell", func(r *stack.Routine) int { return r.WaitMinutes - 1 }},
		{"behind the clock", func(r *stack.Routine) int { return r.WaitMinutes + 2 }},
	} {
		got := stuckIDs(first, later(d, t0.Add(5*time.Minute), tc.wait))
		for _, id := range waiting {
			if slices.Contains(got, id) {
				t.Errorf("%s: goroutine %d woke up between the captures, yet stuck", tc.name, id)
			}
		}
	}
	// Without capture times only a fall of the minutes is progress.
	noTime := func(d *stack.Dump) *stack.Dump { c := *d; c.Source.CapturedAt = time.Time{}; return &c }
	got = stuckIDs(noTime(first), noTime(later(d, t0, func(r *stack.Routine) int { return r.WaitMinutes + 2 })))
	for _, id := range waiting {
		if !slices.Contains(got, id) {
			t.Errorf("without times: goroutine %d not stuck", id)
		}
	}
}

// parkedAt finds a parkAt goroutine parked on its channel.
var parkedAt = regexp.MustCompile(`\[chan receive\]:\n[^\n]*\.parkAt\(`)

//go:noinline
func parkAt(site int, ch chan struct{}, wg *sync.WaitGroup) {
	wg.Done()
	switch site {
	case 0:
		<-ch
	case 1:
		<-ch
	case 2:
		<-ch
	case 3:
		<-ch
	case 4:
		<-ch
	case 5:
		<-ch
	default:
		<-ch
	}
}

// TestTimelineGroupsRankByPeak takes four runtime.Stack dumps of this
// process while a group goes 20 → 25 → 20 → 0 and six others hold 5
// goroutines each: the group that shrank to nothing is listed first, with
// its first, peak and last counts, though the default top is 5.
func TestTimelineGroupsRankByPeak(t *testing.T) {
	var wg sync.WaitGroup
	steady := make(chan struct{})
	defer close(steady)
	for site := range 6 {
		for range 5 {
			wg.Add(1)
			go parkAt(site, steady, &wg)
		}
	}
	wg.Wait()
	var peak []chan struct{}
	resize := func(n int) {
		for len(peak) > n {
			close(peak[len(peak)-1])
			peak = peak[:len(peak)-1]
		}
		for len(peak) < n {
			ch := make(chan struct{})
			peak = append(peak, ch)
			wg.Add(1)
			go parkAt(6, ch, &wg)
		}
		wg.Wait()
	}
	defer resize(0)
	tl := NewTimeline(TimelineOptions{})
	buf := make([]byte, 4<<20)
	for _, n := range []int{20, 25, 20, 0} {
		resize(n)
		want := 30 + n
		for range 1000 { // exited goroutines leave the dump soon after
			k := runtime.Stack(buf, true)
			text := string(buf[:k])
			if strings.Count(text, ".parkAt(") == want && len(parkedAt.FindAllString(text, -1)) == want {
				break // every one of them parked, none on its way
			}
			time.Sleep(time.Millisecond)
		}
		dumps, err := formats.ReadAll(strings.NewReader(string(buf[:runtime.Stack(buf, true)])), formats.ReadOptions{})
		if err != nil || len(dumps) != 1 {
			t.Fatal(err)
		}
		tl.Add(dumps[0])
	}
	rep := tl.Report()
	if len(rep.Groups) != DefaultTop {
		t.Fatalf("%d groups, want %d", len(rep.Groups), DefaultTop)
	}
	g := rep.Groups[0]
	if !slices.Equal(g.Counts, []int64{20, 25, 20, 0}) || g.First != 20 || g.Peak != 25 || g.PeakAt != 1 || g.Last != 0 {
		t.Errorf("first group %+v; want the one that went 20 → 25 → 20 → 0", g)
	}
	for _, s := range rep.Groups[1:] {
		if s.Peak > g.Peak {
			t.Errorf("group %s peaks at %d above the first", s.Key, s.Peak)
		}
	}
	text := timelineText(t, rep)
	if !strings.Contains(text, "25  20 → 25 → 20 → 0") {
		t.Errorf("text lacks the peak and the counts:\n%s", text)
	}
}

func timelineText(t *testing.T, rep *TimelineReport) string {
	t.Helper()
	var b strings.Builder
	if err := WriteTimelineText(&b, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A bounded timeline describes its last snapshots, and a run of a stuck
// routine may start before the oldest of them; a group row past
// textCounts snapshots shows its first and last counts and where it
// peaked.
func TestTimelineBoundedRuns(t *testing.T) {
	d := readDumps(t, "../testdata/go/demo_go126.txt")[0]
	tl := NewTimeline(TimelineOptions{KeepSnapshots: 10})
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range 12 {
		tl.Add(later(d, t0.Add(time.Duration(i)*time.Second), func(r *stack.Routine) int { return r.WaitMinutes }))
	}
	rep := tl.Report()
	if rep.Dropped != 2 || len(rep.Snapshots) != 10 || rep.StuckTotal == 0 {
		t.Fatalf("dropped %d, %d snapshots, %d stuck", rep.Dropped, len(rep.Snapshots), rep.StuckTotal)
	}
	for _, s := range append(rep.Stuck, rep.Housekeeping...) {
		if s.Since != 0 || s.Snapshots != 12 || s.Observed != 11*time.Second {
			t.Errorf("row %+v: want stuck since #0, over 12 snapshots, 11s", s)
		}
	}
	text := timelineText(t, rep)
	if !strings.Contains(text, fmt.Sprintf("%d → … → %d (peak at #2)", rep.Groups[0].First, rep.Groups[0].Last)) {
		t.Errorf("a group row of 10 snapshots:\n%s", text)
	}
}
