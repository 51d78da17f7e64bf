package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/analyze"
)

// restartLine is the part of a --json line the restart tests read.
type restartLine struct {
	Snapshot    int          `json:"snapshot"`
	Total       int64        `json:"total"`
	Restarted   string       `json:"restarted"`
	HistoryFrom int          `json:"history_from"`
	Restarts    int          `json:"restarts"`
	Capture     watchCapture `json:"capture"`
	Groups      []watchRow   `json:"groups"`
}

// watchRound runs one round of w and returns its only target's --json
// line and table.
func watchRound(t *testing.T, w *watcher, o watchOptions) (restartLine, string) {
	t.Helper()
	out := w.round(context.Background())
	if len(out) != 1 || out[0].err != nil {
		t.Fatalf("round %d: %+v", w.rounds, out)
	}
	var js, table strings.Builder
	if err := writeWatchJSON(&js, out[0].target, o); err != nil {
		t.Fatal(err)
	}
	writeWatchTable(&table, out[0].target, o)
	var l restartLine
	if err := json.Unmarshal([]byte(js.String()), &l); err != nil {
		t.Fatalf("%v: %s", err, js.String())
	}
	return l, table.String()
}

// TestWatchRestartedTarget: a real target that lived (5,000 goroutines
// started and ended: its ids are past 5,000) is watched twice, then
// replaced by a new process on the same address with fewer goroutines.
// The counts of the next snapshot show the total fell by half, which asks
// for detail; its goroutine ids started again, so it begins a new
// history, said in the table, --json and stackdump_target_restarts_total,
// and the groups are not compared with the predecessor's (no -194 since
// last). The snapshots of one process never are.
func TestWatchRestartedTarget(t *testing.T) {
	old := startPauseTarget(t, "-goroutines", "200", "-depth", "0", "-churn", "5000")
	target := "http://" + old.addr + "/debug/pprof/goroutine"
	o := watchOptions{detailEvery: 10, top: 5, leakAfter: 2}
	w, url := newTestWatcher(t, []string{target}, 10*time.Millisecond, o)
	o = watchOptions{top: 5, leakAfter: 2}

	for n := 1; n <= 2; n++ {
		l, table := watchRound(t, w, o)
		if l.Restarted != "" || l.HistoryFrom != 1 || l.Restarts != 0 || strings.Contains(table, "restart") {
			t.Fatalf("snapshot %d of one process: %+v\n%s", n, l, table)
		}
		if n == 2 && l.Capture.Mode != "counts" {
			t.Fatalf("snapshot 2: %s, want the counts (nothing grew)", l.Capture.text())
		}
	}
	old.stop()
	restarted := startPauseTarget(t, "-goroutines", "20", "-depth", "0", "-addr", old.addr)

	l, table := watchRound(t, w, o)
	t.Logf("%s", table)
	if !strings.HasPrefix(l.Restarted, "goroutine ids started again (the largest is ") || l.HistoryFrom != 3 || l.Restarts != 1 ||
		l.Capture.Mode != "full" || !strings.Contains(l.Capture.Why, "the total fell 206 → 26") {
		t.Errorf("snapshot 3, of the new process: %+v; want a restart from the ids of the full capture the fallen total asked for", l)
	}
	for _, g := range l.Groups {
		if g.DeltaLast != 0 || g.DeltaFirst != 0 {
			t.Errorf("snapshot 3: group %s compared with the old process: %+v", g.Top, g)
		}
	}
	for _, want := range []string{"snapshot 3 at", "total 26 (a new process: its history starts here)", "  restarted: goroutine ids started again (the largest is "} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "since last") {
		t.Errorf("the table compares the new process with the old:\n%s", table)
	}
	if n := one(t, scrape(t, url), "stackdump_target_restarts_total", target); n != 1 {
		t.Errorf("stackdump_target_restarts_total %v, want 1", n)
	}

	l, table = watchRound(t, w, o)
	if l.Restarted != "" || l.HistoryFrom != 3 || l.Restarts != 1 || !strings.Contains(table, "+0 since last, +0 since snapshot 3, the restart") {
		t.Errorf("snapshot 4, of the same new process: %+v\n%s", l, table)
	}
	var report strings.Builder
	writeWatchReport(&report, w.targets[0], false, o)
	if !strings.Contains(report.String(), "restarted 1 time, last at snapshot 3: goroutine ids started again") || !strings.Contains(report.String(), "2 snapshots; total 26 → 26") {
		t.Errorf("final report:\n%s", report.String())
	}
	if st := restarted.stats(t); len(st.Requests) == 0 {
		t.Error("the new process was not captured")
	}
}

// TestRestartEvidence holds the two rules on the ids a snapshot keeps: ids
// that started again, and an id whose goroutine started elsewhere; in one
// process (ids grow, the low ones keep their functions) neither holds.
func TestRestartEvidence(t *testing.T) {
	old := &processIDs{maxID: 9013, entries: map[int64]string{1: "runtime.main", 7: "main.serve", 9: "main.worker"}}
	for _, c := range []struct {
		now  *processIDs
		want string
	}{
		{&processIDs{maxID: 9100, entries: map[int64]string{1: "runtime.main", 7: "main.serve", 12: "main.worker"}}, ""},
		{&processIDs{maxID: 4600, entries: map[int64]string{1: "runtime.main", 9: "main.worker"}}, ""}, // the newest ended: not half
		{&processIDs{maxID: 57, entries: map[int64]string{1: "runtime.main", 7: "main.serve"}}, "goroutine ids started again (the largest is 57, was 9013)"},
		{&processIDs{maxID: 9050, entries: map[int64]string{1: "runtime.main", 7: "main.worker", 9: "main.serve"}}, "goroutine 7 started in main.worker, and in main.serve before"},
		{nil, ""},
	} {
		if got := restartEvidence(old, c.now); got != c.want {
			t.Errorf("restartEvidence(%+v) = %q, want %q", c.now, got, c.want)
		}
	}
	if got := restartEvidence(nil, old); got != "" {
		t.Errorf("no earlier ids: %q", got)
	}
}

// TestWatchRestartForgetsFindings: a target replaced by a larger process
// (ten times the goroutines at each place) is a restart, not growth: the
// snapshot's findings are made with a new history, so no group of the new
// process "grew" from its predecessor's.
func TestWatchRestartForgetsFindings(t *testing.T) {
	old := startPauseTarget(t, "-goroutines", "40", "-depth", "0", "-churn", "5000")
	target := "http://" + old.addr + "/debug/pprof/goroutine"
	o := watchOptions{detailEvery: 1, top: 5, leakAfter: 2}
	w, _ := newTestWatcher(t, []string{target}, 0, o)
	o = watchOptions{top: 5, leakAfter: 2}
	for range 2 {
		watchRound(t, w, o)
	}
	old.stop()
	startPauseTarget(t, "-goroutines", "400", "-depth", "0", "-addr", old.addr)
	l, table := watchRound(t, w, o)
	if l.Restarted == "" {
		t.Fatalf("the larger new process is not seen as a restart:\n%s", table)
	}
	for _, f := range w.targets[0].findings {
		for _, e := range f.Evidence {
			if e.Kind == analyze.EvidenceGrowth {
				t.Errorf("the new process grew from its predecessor: %s (%s)", f, e.Text)
			}
		}
	}
}
