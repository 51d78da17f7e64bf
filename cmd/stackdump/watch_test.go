package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// growingServer serves net/http/pprof and starts `step` more leakyWorker
// goroutines before answering each full dump request (debug=2; a snapshot
// asks debug=1 first): a leak that grows with every snapshot that takes a
// full capture. Its watches pass --max-pause 0 (a full capture each
// snapshot): under the pause budget the counts alone, which do not grow it,
// would make most snapshots.
func growingServer(t *testing.T, step int) *httptest.Server {
	ch := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(ch); wg.Wait() })
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("debug") != "2" {
			pprof.Index(w, r)
			return
		}
		var started sync.WaitGroup
		for range step {
			wg.Add(1)
			started.Add(1)
			go func() { defer wg.Done(); watchedWorker(ch, &started) }()
		}
		started.Wait() // every new goroutine is inside watchedWorker
		pprof.Index(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

//go:noinline
func watchedWorker(ch chan struct{}, started *sync.WaitGroup) {
	started.Done()
	<-ch
}

func TestWatchFlagsGrowingGroup(t *testing.T) {
	srv := growingServer(t, 7)
	dir := filepath.Join(t.TempDir(), "snaps")
	stdout, stderr, err := runCLI(t, "watch", srv.URL, "--max-pause", "0", "--every", "20ms", "--count", "5", "--keep", "3", "--leak-after", "2", "--json", "-o", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d JSON lines, want one per snapshot (5):\n%s", len(lines), stdout)
	}
	var last struct {
		Snapshot int `json:"snapshot"`
		Groups   []struct {
			Key        string `json:"key"`
			Count      int64  `json:"count"`
			DeltaLast  int64  `json:"delta_last"`
			DeltaFirst int64  `json:"delta_first"`
			Top        string `json:"top"`
			Suspect    bool   `json:"suspect"`
		} `json:"groups"`
		Suspects []string `json:"suspects"`
	}
	if err := json.Unmarshal([]byte(lines[4]), &last); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range last.Groups {
		if strings.Contains(g.Top, "watchedWorker") {
			found = true
			if !g.Suspect || g.Count != 35 || g.DeltaLast != 7 || g.DeltaFirst != 28 {
				t.Errorf("leaking group: %+v; want a suspect of 35 grown by 7 since the last and 28 since the first snapshot", g)
			}
			if len(last.Suspects) == 0 || last.Suspects[0] != g.Key {
				t.Errorf("suspects %v do not lead with the leaking group %s", last.Suspects, g.Key)
			}
		}
	}
	if !found || last.Snapshot != 5 {
		t.Errorf("snapshot %d has no watchedWorker group: %+v", last.Snapshot, last.Groups)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 3 {
		t.Errorf("%d snapshot files kept, want --keep 3", len(files))
	}
}

func TestWatchTableAndReport(t *testing.T) {
	srv := growingServer(t, 3)
	stdout, stderr, err := runCLI(t, "watch", srv.URL, "--max-pause", "0", "--every", "10ms", "--count", "4", "--leak-after", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"snapshot 4", "Δ LAST", "leak suspect", "4 snapshots; total"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("watch output lacks %q:\n%s", want, stdout)
		}
	}
	// Counts over the snapshots are words, not a Go slice.
	if !regexp.MustCompile(`leak suspect .* counts \d+ → \d+ → \d+ → \d+, peak 12\n`).MatchString(stdout) {
		t.Errorf("leak suspect counts are not written as a series with their peak:\n%s", stdout)
	}
}

// scheduledServer serves net/http/pprof and, before answering the nth full
// dump request (debug=2), holds counts[n] watchedWorker goroutines (the
// last count once past the end): a group that grows and shrinks.
func scheduledServer(t *testing.T, counts []int) *httptest.Server {
	var mu sync.Mutex
	var stops []chan struct{}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		for _, ch := range stops {
			close(ch)
		}
		wg.Wait()
	})
	n := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("debug") != "2" {
			pprof.Index(w, r)
			return
		}
		mu.Lock()
		want := counts[min(n, len(counts)-1)]
		n++
		for len(stops) > want {
			close(stops[len(stops)-1])
			stops = stops[:len(stops)-1]
		}
		var started sync.WaitGroup
		for len(stops) < want {
			ch := make(chan struct{})
			stops = append(stops, ch)
			wg.Add(1)
			started.Add(1)
			go func() { defer wg.Done(); watchedWorker(ch, &started) }()
		}
		started.Wait()
		mu.Unlock()
		for strings.Count(string(goroutineProfile(t, 2)), "stackdump.watchedWorker(") != want {
			time.Sleep(time.Millisecond) // the stopped ones to end
		}
		pprof.Index(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestWatchReportShowsPeak: a group that went 20 → 25 → 20 → 0 over four
// snapshots; the final report gives the total's peak and the snapshot that
// had it, not only first → last (issue 24).
func TestWatchReportShowsPeak(t *testing.T) {
	srv := scheduledServer(t, []int{20, 25, 20, 0})
	stdout, stderr, err := runCLI(t, "watch", srv.URL, "--max-pause", "0", "--every", "10ms", "--count", "4")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	m := regexp.MustCompile(`4 snapshots; total (\d+) → (\d+) \(([-+]\d+)\), peak (\d+) at snapshot (\d+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("the final report gives no peak:\n%s", stdout)
	}
	first, _ := strconv.Atoi(m[1])
	last, _ := strconv.Atoi(m[2])
	peak, _ := strconv.Atoi(m[4])
	if m[5] != "2" || peak-first < 5 || peak-last < 25 {
		t.Errorf("report %q: want the peak at snapshot 2, 5 above the first total and 25 above the last", m[0])
	}
}

// TestWatchRefusesDashOutput: `-o -` used to create a directory named
// "-"; watch writes snapshots to a directory, so it is refused before any
// capture, and nothing is created.
func TestWatchRefusesDashOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, _, err := runCLI(t, "watch", "127.0.0.1:1", "--count", "1", "-o", "-")
	if err == nil || !strings.Contains(err.Error(), "directory") || !strings.Contains(err.Error(), "-o -") {
		t.Fatalf("watch -o - gave %v, want an error saying watch writes to a directory", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
		t.Fatalf("watch -o - created %q (stat: %v)", filepath.Join(dir, "-"), err)
	}
}

// TestWatchReportTooFewSnapshots: with no more snapshots than --leak-after
// no group can have grown in each of the last --leak-after, so the report
// says there were too few to tell, not that no group grew (which read as
// "no leak" after `watch --count 2` of a leaking target).
func TestWatchReportTooFewSnapshots(t *testing.T) {
	srv := growingServer(t, 3)
	for _, tc := range []struct {
		count, want, not string
	}{
		{"2", "too few snapshots to flag a leak: growth in each of the last 3 snapshots (--leak-after) needs 4", "no group grew"},
		{"3", "too few snapshots to flag a leak", "no group grew"},
		{"4", "leak suspect", "too few"},
	} {
		stdout, stderr, err := runCLI(t, "watch", srv.URL, "--max-pause", "0", "--every", "10ms", "--count", tc.count, "--leak-after", "3")
		if err != nil {
			t.Fatalf("--count %s: %v\n%s", tc.count, err, stderr)
		}
		if !strings.Contains(stdout, tc.want) || strings.Contains(stdout, tc.not) {
			t.Errorf("--count %s: report lacks %q or has %q:\n%s", tc.count, tc.want, tc.not, stdout)
		}
	}
}

// TestWatchRefusesBadFlags: flag values watch has no meaning for are
// refused before any request or directory: `--top -3` panicked after the
// first snapshot, `--count -1` watched until Ctrl-C, `--leak-after 0`
// reported "no group grew in each of the last 0 snapshots", `--keep -1`
// and `--concurrency 0` were read as "no limit" and 1 without a word.
func TestWatchRefusesBadFlags(t *testing.T) {
	srv, requests := countRequests(t, pprofMux())
	for _, tc := range []struct{ flag, value string }{
		{"--top", "-3"}, {"--top", "0"}, {"--count", "-1"}, {"--leak-after", "0"},
		{"--keep", "-1"}, {"--concurrency", "0"}, {"--concurrency", "-2"},
	} {
		dir := filepath.Join(t.TempDir(), "snaps")
		_, _, err := runCLI(t, "watch", srv.URL, "--every", "10ms", "--count", "1", "-o", dir, tc.flag, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.flag+" must be") {
			t.Errorf("watch %s %s: err = %v, want an error naming %s", tc.flag, tc.value, err, tc.flag)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("watch %s %s created %s (stat: %v)", tc.flag, tc.value, dir, err)
		}
	}
	if _, _, err := runCLI(t, "capture", "-q", srv.URL, "--concurrency", "0"); err == nil || !strings.Contains(err.Error(), "--concurrency must be") {
		t.Errorf("capture --concurrency 0: err = %v, want an error naming --concurrency", err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
}
