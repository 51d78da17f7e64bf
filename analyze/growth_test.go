package analyze

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// connLeakDumps reads the three real captures of `judged connleak`
// (testdata/judged/README.md), each taken at its offset from the first;
// without offsets the dumps have no capture times, as a text traceback
// has none.
func connLeakDumps(t *testing.T, offsets ...time.Duration) []*stack.Dump {
	t.Helper()
	start := time.Date(2026, 12, 8, 0, 9, 35, 0, time.UTC)
	var out []*stack.Dump
	for i := range 3 {
		dumps := readDumps(t, filepath.Join("testdata", "judged", fmt.Sprintf("connleak_go126.%d.txt.gz", i+1)))
		if len(dumps) != 1 {
			t.Fatalf("connleak %d: %d dumps", i+1, len(dumps))
		}
		if offsets != nil {
			dumps[0].Source.CapturedAt = start.Add(offsets[i])
		}
		out = append(out, dumps[0])
	}
	return out
}

// growthOf returns the growth findings analyze makes on the last of the
// dumps (analysed in order, as `stackdump analyze A B C`), and those the
// timeline over them makes.
func growthOf(dumps []*stack.Dump) (analyzed, timeline []Finding) {
	h := NewLeakHistory()
	tl := NewTimeline(TimelineOptions{})
	var s *Summary
	for _, d := range dumps {
		s = Summarize(d, nil, Options{History: h})
		tl.Add(d)
	}
	pick := func(fs []Finding) []Finding {
		var out []Finding
		for _, f := range fs {
			if f.Kind == FindingGrowth {
				out = append(out, f)
			}
		}
		return out
	}
	return pick(s.Findings), pick(tl.Report().Findings)
}

func evidenceKinds(f Finding) []string {
	var out []string
	for _, e := range f.Evidence {
		out = append(out, e.Kind)
	}
	return out
}

// In judged connleak a server's connection goroutines leak: they wait in
// net/http.(*connReader).Read, 100 → 200 → 300 over 65s, and the first
// hundred have waited a minute by the last dump. Beside them the
// goroutines of an echo service and of its clients grow just as much and
// keep their ids, but wake every 500ms. Growth is found of the leak
// alone, by analyze and by the timeline alike, with what shows that its
// waiters stay — and also without capture times, from the waits that
// rose by a minute.
func TestGrowthOfNetworkWaitersThatStay(t *testing.T) {
	for _, offsets := range [][]time.Duration{{0, 33 * time.Second, 65 * time.Second}, nil} {
		analyzed, timeline := growthOf(connLeakDumps(t, offsets...))
		for who, fs := range map[string][]Finding{"analyze": analyzed, "timeline": timeline} {
			if len(fs) != 1 || fs[0].Subject.Frame == nil || fs[0].Subject.Frame.Func != "net/http.(*connReader).Read" {
				t.Errorf("times %v, %s: growth %v; want the leaking connections' alone", offsets, who, fs)
				continue
			}
			f := fs[0]
			if f.Confidence != Likely || f.Subject.Count != 300 || f.Subject.State != "IO wait" ||
				!slices.Equal(evidenceKinds(f), []string{EvidenceGrowth, EvidenceNoProgress, EvidenceWaitAge, EvidenceSize, EvidenceWaitAge}) {
				t.Errorf("times %v, %s: %s %+v", offsets, who, f, f.Evidence)
			}
			var text strings.Builder
			for _, e := range f.Evidence {
				text.WriteString(e.Text + "\n")
			}
			for _, want := range []string{"(100 → 200 → 300)", "the network (IO wait)", "the process grew with them",
				"100 of the 100 goroutines", "longest wait rose from 0 to 1 minute", "the oldest never woke"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("times %v, %s: evidence does not say %q:\n%s", offsets, who, want, text.String())
				}
			}
			if offsets != nil && !strings.Contains(text.String(), "over 1m5s") {
				t.Errorf("times %v, %s: evidence does not say the span:\n%s", offsets, who, text.String())
			}
			if !strings.Contains(f.WouldProve, "a later snapshot") {
				t.Errorf("%s: would prove %q", who, f.WouldProve)
			}
		}
	}
}

// Three dumps taken a second apart cannot tell a leak of connections from
// a server whose load rose: with the same dumps a second apart, no group
// of network or timer waiters is said to grow (a healthy caddy's
// connections went 32 → 51 so, under a load that changed).
func TestGrowthOfNetworkWaitersTakenQuickly(t *testing.T) {
	analyzed, timeline := growthOf(connLeakDumps(t, 0, time.Second, 2*time.Second))
	if len(analyzed) != 0 || len(timeline) != 0 {
		t.Errorf("growth of dumps two seconds apart: %v, %v", analyzed, timeline)
	}
}

// The rule of growth.go, condition by condition.
func TestGrowthRule(t *testing.T) {
	t0 := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	times := func(gaps ...time.Duration) []time.Time {
		out := []time.Time{t0}
		for _, g := range gaps {
			out = append(out, out[len(out)-1].Add(g))
		}
		return out
	}
	leak := growthCase{key: "k", state: "IO wait", frame: &FrameRef{Func: "main.serve"}, outside: IdleNetwork,
		counts: []int64{100, 200, 300}, waits: []int64{0, 0, 1}, listed: 100, kept: 100}
	proc := growthProcess{totals: []int64{300, 600, 900}, at: times(33*time.Second, 32*time.Second), waits: true, ids: true, unit: "dump", noun: "goroutines"}
	for _, tc := range []struct {
		name string
		edit func(c *growthCase, p *growthProcess)
		want Confidence // "": no finding
	}{
		{"a leak", func(*growthCase, *growthProcess) {}, Likely},
		{"fell once", func(c *growthCase, _ *growthProcess) { c.counts = []int64{100, 90, 300} }, ""},
		{"rose too little", func(c *growthCase, _ *growthProcess) { c.counts = []int64{100, 104, 109} }, ""},
		{"a second apart", func(_ *growthCase, p *growthProcess) { p.at = times(time.Second, time.Second) }, ""},
		{"moved in from other stacks", func(_ *growthCase, p *growthProcess) { p.totals = []int64{300, 310, 320} }, ""},
		{"members left", func(c *growthCase, _ *growthProcess) { c.kept = 80 }, ""},
		{"they woke", func(c *growthCase, _ *growthProcess) { c.waits = []int64{0, 0, 0} }, ""},
		{"old before, not older", func(c *growthCase, _ *growthProcess) { c.waits = []int64{7, 7, 7} }, ""},
		{"old and older", func(c *growthCase, _ *growthProcess) { c.waits = []int64{7, 7, 8} }, Likely},
		{"without times, waits rose", func(_ *growthCase, p *growthProcess) { p.at = make([]time.Time, 3) }, Likely},
		{"without ids", func(c *growthCase, p *growthProcess) { c.listed, c.kept, p.ids = -1, 0, false }, Likely},
		{"a timer", func(c *growthCase, _ *growthProcess) { c.outside, c.state = IdleTimer, "sleep" }, Likely},
		{"without wait minutes, three dumps", func(c *growthCase, p *growthProcess) { c.waits, p.waits = []int64{0, 0, 0}, false }, ""},
		{"without wait minutes, six dumps over six minutes", func(c *growthCase, p *growthProcess) {
			c.counts, c.waits, c.listed, c.kept = []int64{100, 120, 140, 160, 180, 200}, make([]int64, 6), 100, 95
			p.totals, p.at, p.waits = []int64{300, 320, 340, 360, 380, 400}, times(time.Minute, time.Minute, time.Minute, time.Minute, 2*time.Minute), false
		}, Possible},
		{"without wait minutes, six dumps over a minute", func(c *growthCase, p *growthProcess) {
			c.counts, c.waits, c.listed, c.kept = []int64{100, 120, 140, 160, 180, 200}, make([]int64, 6), 100, 95
			p.totals, p.at, p.waits = []int64{300, 320, 340, 360, 380, 400}, times(12*time.Second, 12*time.Second, 12*time.Second, 12*time.Second, 12*time.Second), false
		}, ""},
		{"in memory, a second apart, nothing else", func(c *growthCase, p *growthProcess) {
			c.outside, c.state, c.waits = "", "chan send", []int64{0, 0, 0}
			p.at, p.totals = times(time.Second, time.Second), []int64{300, 300, 300}
		}, Likely},
		{"in memory, members came and go", func(c *growthCase, p *growthProcess) {
			c.outside, c.state, c.waits, c.kept = "", "chan receive", []int64{0, 0, 0}, 30
			p.at = times(time.Second, time.Second)
		}, ""},
		{"in memory, without ids", func(c *growthCase, p *growthProcess) {
			c.outside, c.state, c.waits, c.listed, c.kept, p.ids = "", "chan receive", []int64{0, 0, 0}, -1, 0, false
			p.at = times(time.Second, time.Second)
		}, Likely},
	} {
		c, p := leak, proc
		c.counts, c.waits, p.totals, p.at = slices.Clone(c.counts), slices.Clone(c.waits), slices.Clone(p.totals), slices.Clone(p.at)
		tc.edit(&c, &p)
		fs := growthFindings([]growthCase{c}, p)
		switch {
		case tc.want == "" && len(fs) != 0:
			t.Errorf("%s: %s %v", tc.name, fs[0], fs[0].Evidence)
		case tc.want != "" && (len(fs) != 1 || fs[0].Confidence != tc.want):
			t.Errorf("%s: %v; want one growth finding, %s", tc.name, fs, tc.want)
		case len(fs) == 1 && (fs[0].WouldProve == "" || len(fs[0].Evidence) < 2 && c.outside != ""):
			t.Errorf("%s: %s: evidence %v, would prove %q", tc.name, fs[0], fs[0].Evidence, fs[0].WouldProve)
		}
	}
}

// A busy pool of 600 workers, three dumps a second apart in which its
// workers waiting for a job happened to be more each time (0 → 190 →
// 204 parked; 440 → 495 → 529 with those just woken): the workers of one
// dump are mostly not those of the next. Neither a leak nor growth: what
// leaked would stay.
func TestGrowthOfABusyPoolIsChurn(t *testing.T) {
	h := NewLeakHistory()
	tl := NewTimeline(TimelineOptions{})
	var s *Summary
	var parked, all []int64
	for i := range 3 {
		d := readDumps(t, filepath.Join("testdata", "judged", fmt.Sprintf("pool600_go126.%d.txt.gz", i+1)))[0]
		groups := dedupe.Group(d, dedupe.Options{})
		for _, g := range groups {
			if g.States["chan receive"] > 0 && dedupe.GroupPlace(g).Frame.Func == "main.(*pool).handle" {
				parked, all = append(parked, g.States["chan receive"]), append(all, g.Count)
			}
		}
		s = Summarize(d, groups, Options{History: h})
		tl.Add(d)
	}
	rose, fell := seriesTrend(parked)
	if allRose, allFell := seriesTrend(all); !rose || fell || !allRose || allFell {
		t.Fatalf("workers waiting %v of %v: the dumps do not show the shape this test is about", parked, all)
	}
	for _, f := range append(s.Findings, tl.Report().Findings...) {
		if f.Subject.Frame != nil && f.Subject.Frame.Func == "main.(*pool).handle" {
			t.Errorf("%s %v", f, f.Evidence)
		}
	}
}

// The runtime hands goroutine ids to each P in batches, so goroutines
// started later can have smaller ids than some started before them: the
// members followed are the first dump's, wherever newcomers' ids fall.
func TestMembersFollowTheFirstDump(t *testing.T) {
	var first, later []int64
	for id := int64(2); id <= 200; id += 2 {
		first = append(first, id)
	}
	for id := int64(1); id <= 300; id++ {
		later = append(later, id) // the first dump's, and newcomers among and after them
	}
	m := newMembers(0)
	m.update(first, 0)
	if n := m.keptIn(later, 0); n != 100 {
		t.Errorf("kept in the next dump: %d of 100", n)
	}
	m.update(later, 1)
	left := slices.DeleteFunc(slices.Clone(later), func(id int64) bool { return id%4 == 0 }) // half the first dump's left
	if n := m.keptIn(left, 0); n != 50 {
		t.Errorf("kept after half left: %d of 100", n)
	}
	m.update(left, 2)
	if n, since1 := m.keptSince(0), m.keptSince(2); n != 50 || since1 != memberIDs {
		t.Errorf("kept since the first dump %d (want 50), since the last %d (want %d: the sample filled up again)", n, since1, memberIDs)
	}
}
