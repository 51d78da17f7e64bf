package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// leakDumps are three dumps of a process whose request handlers leak:
// idle workers stay, a poller comes and goes, leaked handlers grow.
func leakDumps() []Input {
	type shape struct{ workers, pollers, leaked int }
	var inputs []Input
	for i, s := range []shape{{10, 5, 0}, {10, 0, 40}, {10, 1, 90}} {
		b := newDump(stack.KindGoTraceback, "")
		b.add(1, 1, stack.Routine{State: "semacquire", Stack: b.stack("sync.(*WaitGroup).Wait@/go/src/sync/waitgroup.go:118", "main.main@/app/main.go:30")})
		b.add(100, s.workers, stack.Routine{State: "chan receive", Stack: b.stack("main.worker@/app/worker.go:12"), CreatedBy: b.frame("main.main@/app/main.go:21"), ParentID: 1})
		b.add(200, s.pollers, stack.Routine{State: "sleep", Stack: b.stack("time.Sleep@/go/src/runtime/time.go:300", "main.poll@/app/poll.go:8")})
		b.add(1000, s.leaked, stack.Routine{State: "chan send", WaitMinutes: i * 5, Stack: b.stack("main.handle@/app/handler.go:55"), CreatedBy: b.frame("net/http.(*Server).Serve@/go/src/net/http/server.go:3285"), ParentID: 7})
		inputs = append(inputs, Input{Name: []string{"t0.txt", "t1.txt", "t2.txt"}[i], Dump: b.dump})
	}
	return inputs
}

func TestTimelineFollowsTheLargestGroups(t *testing.T) {
	inputs := leakDumps()
	doc := pageData(t, writeReport(t, inputs, Options{Series: 2}))
	tl := doc.Timeline
	if tl == nil {
		t.Fatal("no timeline for three dumps")
	}
	if !slices.Equal(tl.Totals, []int64{16, 51, 102}) {
		t.Errorf("totals %v", tl.Totals)
	}
	// Ranked by their peak: leaked handlers (90), then the workers (10).
	if len(tl.Series) != 2 {
		t.Fatalf("%d series, want 2", len(tl.Series))
	}
	want := []struct {
		label  string
		counts []int64
	}{
		{"main.handle", []int64{0, 40, 90}},
		{"main.worker", []int64{10, 10, 10}},
	}
	for i, w := range want {
		s := tl.Series[i]
		if s.Label != w.label || !slices.Equal(s.Counts, w.counts) {
			t.Errorf("series %d: %s %v, want %s %v", i, s.Label, s.Counts, w.label, w.counts)
		}
		// The series' key is the group's key in every dump that has it.
		for d, in := range doc.Inputs {
			var n int64
			for _, g := range in.Groups {
				if g.Key == s.Key {
					n = g.Count
				}
			}
			if n != s.Counts[d] {
				t.Errorf("series %s in dump %d: %d, the dump's group has %d", s.Label, d, s.Counts[d], n)
			}
		}
	}
	names := []string{doc.Inputs[0].Name, doc.Inputs[1].Name, doc.Inputs[2].Name}
	if !slices.Equal(names, []string{"t0.txt", "t1.txt", "t2.txt"}) {
		t.Errorf("dumps out of argument order: %v", names)
	}
	if doc.Title != "stackdump report: t0.txt and 2 more" {
		t.Errorf("title %q", doc.Title)
	}
}

func TestNoTimelineForOneDump(t *testing.T) {
	doc := pageData(t, writeReport(t, leakDumps()[:1], Options{}))
	if doc.Timeline != nil {
		t.Errorf("one dump has a timeline: %+v", doc.Timeline)
	}
}

func TestFramesAreSharedAcrossDumps(t *testing.T) {
	inputs := leakDumps() // three Tables: the same frames, different pointers
	doc := pageData(t, writeReport(t, inputs, Options{}))
	seen := map[string]bool{}
	for _, row := range doc.Frames {
		k := fmt.Sprint(doc.Strings[row[0]], " ", doc.Strings[row[1]], ":", row[2])
		if seen[k] {
			t.Errorf("frame %s written twice", k)
		}
		seen[k] = true
	}
	if len(doc.Frames) != 8 { // 7 in stacks, and main.main:21 creating the workers
		t.Errorf("%d frames, want the 8 distinct ones", len(doc.Frames))
	}
}

func TestTimelineLabelsTellGroupsApart(t *testing.T) {
	var inputs []Input
	for i := range 2 {
		b := newDump(stack.KindGoTraceback, "")
		b.add(1, 3+i, stack.Routine{State: "sync.Cond.Wait", Stack: b.stack("sync.(*Cond).Wait@/go/src/sync/cond.go:70", "example.com/pool.(*Pool).get@/src/pool/pool.go:40", "main.main@/app/main.go:5")})
		b.add(100, 2, stack.Routine{State: "sync.Cond.Wait", Stack: b.stack("sync.(*Cond).Wait@/go/src/sync/cond.go:70", "example.com/queue.(*Queue).pop@/src/queue/q.go:12", "main.main@/app/main.go:6")})
		b.add(200, 1, stack.Routine{State: "select", Stack: b.stack("main.loop@/app/loop.go:9")})
		inputs = append(inputs, Input{Dump: b.dump})
	}
	doc := pageData(t, writeReport(t, inputs, Options{}))
	var labels []string
	for _, s := range doc.Timeline.Series {
		labels = append(labels, s.Label)
	}
	// Named by the rule of every table (dedupe.PlaceOf): the program's code
	// past sync.(*Cond).Wait, which no longer needs a caller to tell the
	// two apart.
	want := []string{"example.com/pool.(*Pool).get", "example.com/queue.(*Queue).pop", "main.loop"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}

// One process's debug=1 and debug=0 profiles (testdata/gen/groups) name its
// generic functions main.process[...] and main.process[go.shape.int]: the
// timeline follows each group through both dumps, and every series is a
// group of every dump, so the page never says "not in this dump".
func TestTimelineMatchesGenericsAcrossFormats(t *testing.T) {
	inputs := append(readCorpus(t, "groups/debug1_go126.txt"), readCorpus(t, "groups/debug0_go126.pb.gz")...)
	doc := pageData(t, writeReport(t, inputs, Options{}))
	if doc.Timeline == nil || len(doc.Timeline.Series) != 4 {
		t.Fatalf("timeline %+v; want the 4 groups of both dumps", doc.Timeline)
	}
	generic := 0
	for _, s := range doc.Timeline.Series {
		if strings.Contains(s.Label, "[") {
			generic++
		}
		if s.Counts[0] == 0 || s.Counts[0] != s.Counts[1] {
			t.Errorf("series %s: counts %v; want the same non-zero count in both dumps", s.Label, s.Counts)
		}
		for d, in := range doc.Inputs {
			if !slices.ContainsFunc(in.Groups, func(g groupDoc) bool { return g.Key == s.Key }) {
				t.Errorf("series %s is not a group of dump %d (%s)", s.Label, d, in.Name)
			}
		}
	}
	if generic != 2 {
		t.Errorf("%d series of generic code, want 2 (process, box.wait): %+v", generic, doc.Timeline.Series)
	}
}
