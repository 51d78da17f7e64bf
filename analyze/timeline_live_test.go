package analyze

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// getDebug2 fetches the program's goroutines as debug=2 text and reads
// them, with the capture time and target a capture would record.
func getDebug2(ctx context.Context, t *testing.T, base string) *stack.Dump {
	t.Helper()
	url := base + "/debug/pprof/goroutine?debug=2"
	at := time.Now().UTC()
	body := livechild.Fetch(ctx, t, url)
	dumps, err := formats.ReadAll(bytes.NewReader(body), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("reading the capture: %d dumps, %v", len(dumps), err)
	}
	d := dumps[0]
	d.Source.CapturedAt, d.Source.Target = at, url
	return d
}

// idsWhere returns the ids of d's routines that have a frame of fn.
func idsWhere(d *stack.Dump, fn string) []int64 {
	var ids []int64
	for _, r := range d.Routines {
		if slices.ContainsFunc(r.Frames(), func(f *stack.Frame) bool { return f.Func == fn }) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func idSet(d *stack.Dump) map[int64]bool {
	m := make(map[int64]bool, len(d.Routines))
	for _, r := range d.Routines {
		m[r.ID] = true
	}
	return m
}

// TestTimelineLiveGo captures a live Go program three times and checks
// that the timeline finds its seven blocked goroutines stuck, none of its
// short-lived ones, and the ids that came and went as counted from the
// dumps themselves.
func TestTimelineLiveGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := livechild.StartStuck(ctx, t)
	var dumps []*stack.Dump
	tl := NewTimeline(TimelineOptions{})
	for i := range 3 {
		if i > 0 {
			time.Sleep(300 * time.Millisecond) // every short-lived goroutine (20ms) is replaced
		}
		d := getDebug2(ctx, t, base)
		dumps = append(dumps, d)
		tl.Add(d)
	}
	rep := tl.Report()

	stuckIDs := idsWhere(dumps[0], "main.stuckWorker")
	if len(stuckIDs) != 7 {
		t.Fatalf("the first dump has %d main.stuckWorker goroutines, want 7", len(stuckIDs))
	}
	// Seven goroutines on one channel, unchanged: the shape of an idle
	// pool (nothing in a dump tells them apart), idle and not stuck.
	var row *StuckRow
	for i := range rep.Idle {
		if rep.Idle[i].Frame != nil && rep.Idle[i].Frame.Func == "main.stuckWorker" {
			row = &rep.Idle[i]
		}
	}
	if row == nil {
		t.Fatalf("main.stuckWorker not listed unchanged: %+v", rep.Idle)
	}
	if row.Count != 7 || !slices.Equal(row.IDs, stuckIDs) || row.State != "chan receive" || row.Since != 0 || row.Snapshots != 3 || row.Why != IdleWait {
		t.Errorf("idle row %+v; want 7 goroutines %v in chan receive in all 3 snapshots", row, stuckIDs)
	}
	if rep.StuckTotal != 0 || len(rep.Findings) != 0 {
		t.Errorf("%d stuck, findings %+v: nothing of this program waits on a lock, a deadlock or a channel no one can serve", rep.StuckTotal, rep.Findings)
	}
	span := dumps[2].Source.CapturedAt.Sub(dumps[0].Source.CapturedAt)
	if row.Observed != span || row.For < span || rep.Span != span {
		t.Errorf("stuck for %v (observed %v, span %v); want the %v between the first and last capture", row.For, row.Observed, rep.Span, span)
	}
	churned := map[int64]bool{}
	for _, d := range dumps {
		for _, id := range idsWhere(d, "main.shortLived") {
			churned[id] = true
		}
	}
	if len(churned) == 0 {
		t.Fatal("no main.shortLived goroutine in any dump")
	}
	total := 0
	for _, s := range append(slices.Clone(rep.Idle), rep.Housekeeping...) {
		total += s.Count
		for _, id := range s.IDs {
			if churned[id] {
				t.Errorf("short-lived goroutine %d reported unchanged: %+v", id, s)
			}
		}
	}
	if total != rep.IdleTotal+rep.HousekeepingTotal || rep.IdleTotal < 7 {
		t.Errorf("idle_total %d, housekeeping_total %d, rows hold %d", rep.IdleTotal, rep.HousekeepingTotal, total)
	}

	if len(rep.Snapshots) != 3 {
		t.Fatalf("%d snapshots", len(rep.Snapshots))
	}
	for i := 1; i < 3; i++ {
		prev, cur := idSet(dumps[i-1]), idSet(dumps[i])
		var added, gone []int64
		for id := range cur {
			if !prev[id] {
				added = append(added, id)
			}
		}
		for id := range prev {
			if !cur[id] {
				gone = append(gone, id)
			}
		}
		slices.Sort(added)
		slices.Sort(gone)
		s := rep.Snapshots[i]
		if s.New != len(added) || s.Gone != len(gone) || s.New == 0 || s.Gone == 0 {
			t.Errorf("snapshot %d: new %d gone %d; the dumps say %d new, %d gone", i, s.New, s.Gone, len(added), len(gone))
		}
		if !slices.Equal(s.NewIDs, added[:min(len(added), timelineIDs)]) || !slices.Equal(s.GoneIDs, gone[:min(len(gone), timelineIDs)]) {
			t.Errorf("snapshot %d: new ids %v gone ids %v; want %v and %v", i, s.NewIDs, s.GoneIDs, added, gone)
		}
		if s.Total != dumps[i].Total || s.Tracked != len(dumps[i].Routines) {
			t.Errorf("snapshot %d: total %d tracked %d, dump has %d", i, s.Total, s.Tracked, dumps[i].Total)
		}
	}
	if len(rep.Busiest) != 0 {
		t.Errorf("goroutines have no CPU times, yet busiest %+v", rep.Busiest)
	}
	var workers *GroupSeries
	for i := range rep.Groups {
		if f := rep.Groups[i].Frame; f != nil && f.Func == "main.stuckWorker" {
			workers = &rep.Groups[i]
		}
	}
	if workers == nil || !slices.Equal(workers.Counts, []int64{7, 7, 7}) {
		t.Errorf("groups over time %+v; want main.stuckWorker at 7, 7, 7", rep.Groups)
	}

	// Memory follows the last snapshot: one entry per routine alive in it.
	if len(tl.live) != len(dumps[2].Routines) {
		t.Errorf("the timeline keeps %d routines; the last snapshot has %d", len(tl.live), len(dumps[2].Routines))
	}
	// A bounded timeline describes the last two snapshots and still finds
	// what did not change since the first.
	bounded := NewTimeline(TimelineOptions{KeepSnapshots: 2})
	for _, d := range dumps {
		bounded.Add(d)
	}
	brep := bounded.Report()
	if len(brep.Snapshots) != 2 || brep.Dropped != 1 || brep.Snapshots[0].Index != 1 || brep.IdleTotal != rep.IdleTotal {
		t.Errorf("bounded: %d snapshots (first #%d), %d dropped, %d idle", len(brep.Snapshots), brep.Snapshots[0].Index, brep.Dropped, brep.IdleTotal)
	}
	for _, g := range brep.Groups {
		if len(g.Counts) != 2 {
			t.Errorf("bounded group %s keeps %d counts", g.Key, len(g.Counts))
		}
	}
	if t.Failed() {
		var b bytes.Buffer
		_ = WriteTimelineText(&b, rep, TextOptions{})
		t.Logf("timeline:\n%s", b.String())
	}
}

// TestTimelineLiveJVM takes three `jcmd PID Thread.print` dumps of a live
// JVM running testdata/gen/jvm/SpinAndPark.java a second apart and checks
// that its three parked threads are unchanged, idle (parked for a signal,
// not for a lock: no thread is stuck) and its spinning thread did the most
// work.
func TestTimelineLiveJVM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pid := startJava(ctx, t, "SpinAndPark")
	tl := NewTimeline(TimelineOptions{})
	var dumps []*stack.Dump
	for i := range 3 {
		if i > 0 {
			time.Sleep(time.Second)
		}
		text := captureThreads(ctx, t, pid)
		ds, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
		if err != nil || len(ds) != 1 {
			t.Fatalf("reading the capture: %d dumps, %v\n%s", len(ds), err, text)
		}
		dumps = append(dumps, ds[0])
		tl.Add(ds[0])
	}
	rep := tl.Report()

	var parked *StuckRow
	for i := range rep.Idle {
		if slices.Contains(rep.Idle[i].Names, "parked-1") {
			parked = &rep.Idle[i]
		}
	}
	if parked == nil || rep.StuckTotal != 0 {
		t.Fatalf("the parked threads are not idle: %+v; stuck %+v", rep.Idle, rep.Stuck)
	}
	if parked.Why != IdleWait {
		t.Errorf("parked threads idle for %q, want %q", parked.Why, IdleWait)
	}
	if !slices.Equal(parked.Names, []string{"parked-1", "parked-2", "parked-3"}) || parked.Count != 3 ||
		!strings.HasPrefix(parked.State, "WAITING") || parked.Frame == nil || parked.Frame.Func != "SpinAndPark.parkForever" {
		t.Errorf("parked row %+v", parked)
	}
	if len(parked.IDs) != 3 {
		t.Errorf("parked threads' ids (#N) %v", parked.IDs)
	}
	if first, last := dumps[0].Source.CapturedAt, dumps[2].Source.CapturedAt; first.IsZero() || parked.Observed != last.Sub(first) {
		t.Errorf("observed %v; captures at %v and %v", parked.Observed, first, last)
	}
	if parked.Since != 0 || parked.Snapshots != 3 {
		t.Errorf("parked run: since #%d, %d snapshots; want all 3", parked.Since, parked.Snapshots)
	}
	// The spinner's cpu= rises: it is busy, not stuck, however alike its
	// stacks.
	for _, s := range append(append(slices.Clone(rep.Stuck), rep.Housekeeping...), rep.Idle...) {
		if slices.Contains(s.Names, "spinner") {
			t.Errorf("spinner listed as %+v", s)
		}
	}
	if len(rep.Busiest) == 0 || rep.Busiest[0].Name != "spinner" {
		t.Fatalf("busiest %+v; want spinner first", rep.Busiest)
	}
	spinner := func(d *stack.Dump) time.Duration {
		for _, r := range d.Routines {
			if r.Name == "spinner" {
				return r.Thread.CPU
			}
		}
		t.Fatal("no spinner thread")
		return 0
	}
	if want := spinner(dumps[2]) - spinner(dumps[0]); rep.Busiest[0].CPU != want || want <= 0 {
		t.Errorf("spinner's work %v; its cpu= went up by %v", rep.Busiest[0].CPU, want)
	}
	// The JDK's own threads fold into one line, which ends with the
	// caller's hint, and with nothing of a command's when none is given.
	for _, hint := range []string{"", "ListHousekeeping lists them"} {
		var b bytes.Buffer
		if err := WriteTimelineText(&b, rep, TextOptions{ListHint: hint}); err != nil {
			t.Fatal(err)
		}
		var folded string
		for line := range strings.Lines(b.String()) {
			if strings.HasPrefix(line, "Housekeeping") {
				folded = strings.TrimSpace(line)
			}
		}
		if !strings.Contains(folded, "of the platform's own idle work, not stuck: ") || hint != "" && !strings.HasSuffix(folded, "; "+hint) ||
			hint == "" && strings.Contains(folded, "lists them") {
			t.Errorf("ListHint %q: housekeeping line %q", hint, folded)
		}
	}
	if t.Failed() {
		var b bytes.Buffer
		_ = WriteTimelineText(&b, rep, TextOptions{})
		t.Logf("timeline:\n%s", b.String())
	}
}
