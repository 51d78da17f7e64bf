package analyze

import (
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestLeakedMarkedByRuntime(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	want := LeakedRow{Count: 4, State: "chan receive",
		Frame:     &FrameRef{Func: "app.orphan", File: "/app/orphan.go", Line: 7},
		CreatedBy: &FrameRef{Func: "app.spawn", File: "/app/orphan.go", Line: 3},
		IDs:       []int64{500, 501, 502, 503}}
	if s.LeakedTotal != 4 || len(s.Leaked) != 1 || !equalLeaked(s.Leaked[0], want) {
		t.Errorf("leaked %d: %+v", s.LeakedTotal, s.Leaked)
	}
}

func equalLeaked(a, b LeakedRow) bool {
	return a.Count == b.Count && a.State == b.State && a.WaitMax == b.WaitMax &&
		*a.Frame == *b.Frame && *a.CreatedBy == *b.CreatedBy && slices.Equal(a.IDs, b.IDs)
}

// Leaked rows are split by where the goroutines block and who started
// them, and keep the smallest ids whatever the order they came in.
func TestLeakedRowsSplitAndOrder(t *testing.T) {
	d := dumpOf(t, stack.KindGoTraceback, g{n: 3, id: 90, state: "chan send", leaked: true, wait: 7, frames: []string{gopark, chansend1, "a.f /a.go:1"}, creator: "a.g /a.go:9"},
		g{n: 8, id: 10, state: "chan send", leaked: true, frames: []string{gopark, chansend1, "a.f /a.go:1"}, creator: "a.h /a.go:19"},
		g{n: 1, id: 5, state: "select", leaked: true, frames: []string{gopark, selectgo, "a.f /a.go:1"}, creator: "a.g /a.go:9"},
		g{n: 20, id: 100, state: "chan send", frames: []string{gopark, chansend1, "a.f /a.go:1"}, creator: "a.g /a.go:9"},
	)
	slices.Reverse(d.Routines)
	s := summarize(d, Options{})
	var got []string
	for _, r := range s.Leaked {
		got = append(got, itoa(r.Count)+" "+r.State+" "+r.CreatedBy.Func+" "+minutes(r.WaitMax)+" "+idList(r.IDs, r.Count))
	}
	want := []string{"8 chan send a.h 0m #10 #11 #12 #13 #14 …", "3 chan send a.g 7m #90 #91 #92", "1 select a.g 0m #5"}
	if s.LeakedTotal != 12 || !slices.Equal(got, want) {
		t.Errorf("leaked %d\n got %q\nwant %q", s.LeakedTotal, got, want)
	}
}

func TestLikelyLeakPerRequest(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	if len(s.LikelyLeaks) != 1 {
		t.Fatalf("likely leaks %+v; want the fetch leak only", s.LikelyLeaks)
	}
	l := s.LikelyLeaks[0]
	want := []string{"started by 120 different goroutines, 120 of which have exited (a pool is started once; these were started per request by goroutines now gone)"}
	if l.Frame.Func != "app.fetch.func1" || l.Blocked != 120 || l.Parents != 120 || l.ExitedParents != 120 || l.Score != 2 ||
		l.Kind != FindingLikelyLeak || l.Confidence != Likely || !slices.Equal(l.Reasons, want) {
		t.Errorf("suspect %+v", l)
	}
}

// Each rule of the heuristic, on one suspect group and a live main: what
// a pool, idle streams and a leak show apart (leaks.go).
func TestLikelyLeakRules(t *testing.T) {
	main := g{id: 1, state: "select", frames: []string{gopark, selectgo, "main.main /m.go:1"}}
	blocked := func(n int, state string, wait int, parents int, parent int64) g {
		return g{n: n, id: 100, state: state, wait: wait, frames: []string{gopark, chanrecv1, "app.wait /a.go:5", goexit},
			creator: "app.start /a.go:2", parent: parent, parents: parents}
	}
	for _, tc := range []struct {
		name    string
		suspect g
		opts    Options
		kind    FindingKind // "": not flagged
		score   int
		exited  int
	}{
		{"idle pool of one live parent", blocked(500, "chan receive", 0, 0, 1), Options{}, "", 0, 0},
		{"idle pool, long wait", blocked(500, "chan receive", 30, 0, 1), Options{}, "", 0, 0},
		{"huge pool, long wait", blocked(1000, "chan receive", 30, 0, 1), Options{}, FindingLeakSuspect, 2, 0},
		{"huge pool, long wait in a select", blocked(1000, "select", 30, 0, 1), Options{}, "", 0, 0},
		{"huge pool, short wait", blocked(1000, "chan receive", 3, 0, 1), Options{}, "", 0, 0},
		{"pool of an exited parent, long wait", blocked(60, "chan receive", 10, 0, 7), Options{}, "", 0, 1},
		{"pool of an exited parent", blocked(60, "chan receive", 0, 0, 7), Options{}, "", 0, 1},
		{"four live parents", blocked(60, "select", 0, 4, 1), Options{}, "", 0, 0},
		{"five parents, one alive", blocked(60, "select", 0, 5, 1), Options{}, FindingLikelyLeak, 2, 4},
		{"many live parents", blocked(600, "select", 0, 600, 1), Options{}, "", 0, 0},
		{"too few", blocked(49, "chan send", 99, 49, 10_000), Options{}, "", 0, 49},
		{"lower threshold", blocked(49, "chan send", 0, 49, 10_000), Options{LeakMinCount: 40}, FindingLikelyLeak, 2, 49},
		{"not a channel", blocked(500, "sleep", 99, 500, 10_000), Options{}, "", 0, 500},
		{"nil channel", blocked(80, "chan receive (nil chan)", 0, 80, 10_000), Options{}, FindingLikelyLeak, 2, 80},
		{"raised parent bar", blocked(80, "chan send", 0, 80, 10_000), Options{LeakMinParents: 100}, "", 0, 80},
		{"lowered wait bar", blocked(80, "chan send", 2, 0, 1), Options{LeakMinWait: 2, LeakLargeCount: 80}, FindingLeakSuspect, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(dumpOf(t, stack.KindGoTraceback, main, tc.suspect), tc.opts)
			if tc.kind == "" {
				if len(s.LikelyLeaks) != 0 {
					t.Errorf("flagged: %+v", s.LikelyLeaks[0])
				}
				return
			}
			if len(s.LikelyLeaks) != 1 {
				t.Fatalf("not flagged")
			}
			l := s.LikelyLeaks[0]
			if l.Kind != tc.kind || l.Score != tc.score || l.ExitedParents != tc.exited || len(l.Reasons) == 0 {
				t.Errorf("%s, score %d, exited %d, reasons %q; want %s, score %d, exited %d", l.Kind, l.Score, l.ExitedParents, l.Reasons, tc.kind, tc.score, tc.exited)
			}
			if !slices.ContainsFunc(s.Findings, func(f Finding) bool { return f.Kind == tc.kind && f.Subject.Count == l.Blocked }) {
				t.Errorf("findings %+v; want the %s", s.Findings, tc.kind)
			}
		})
	}
}

// Only the members parked on channels count: a group whose stack is shared
// by running goroutines is judged by its blocked ones.
func TestLikelyLeakCountsBlockedMembers(t *testing.T) {
	frames := []string{gopark, chansend1, "app.send /a.go:3", goexit}
	d := dumpOf(t, stack.KindGoTraceback, g{n: 45, id: 100, state: "chan send", frames: frames, creator: "app.go /a.go:1", parent: 1000, parents: 45},
		g{n: 10, id: 200, state: "runnable", frames: frames, creator: "app.go /a.go:1", parent: 2000, parents: 10},
	)
	if s := summarize(d, Options{}); len(s.LikelyLeaks) != 0 {
		t.Errorf("45 blocked of 55 flagged: %+v", s.LikelyLeaks[0])
	}
	if s := summarize(d, Options{LeakMinCount: 45}); len(s.LikelyLeaks) != 1 || s.LikelyLeaks[0].Blocked != 45 || s.LikelyLeaks[0].Count != 55 {
		t.Errorf("suspect %+v; want 45 blocked of 55", s.LikelyLeaks)
	}
}

// When a group's ids were capped, parents above the kept ids may be in
// the dump unseen: they are neither alive nor exited.
func TestLikelyLeakExitedUnknownPastIDCap(t *testing.T) {
	var even []int64
	for id := int64(2); id <= 20; id += 2 {
		even = append(even, id)
	}
	groups := []*stack.Group{
		{Key: "a", Count: 100, IDs: even, MoreIDs: 90, States: map[string]int64{"IO wait": 100}},
		{Key: "b", Count: 60, IDs: []int64{500}, ParentIDs: []int64{4, 7, 25, 26, 27}, States: map[string]int64{"chan send": 60}},
		{Key: "c", Count: 60, IDs: []int64{501}, ParentIDs: []int64{30, 31}, States: map[string]int64{"chan send": 60}},
	}
	x := newIDIndex(groups)
	if got := exitedParents(groups[1], x); got != 1 {
		t.Errorf("exited %d; want 1: 4 is alive, 7 exited, 25-27 may be among the capped ids", got)
	}
	if got := exitedParents(groups[2], x); got != -1 {
		t.Errorf("exited %d; want -1 (unknown)", got)
	}
	for id, want := range map[int64]presence{4: present, 7: absent, 20: present, 21: presenceUnknown, 500: present, 0: presenceUnknown} {
		if _, where := x.find(id); where != want {
			t.Errorf("find(%d) = %v, want %v", id, where, want)
		}
	}
}
