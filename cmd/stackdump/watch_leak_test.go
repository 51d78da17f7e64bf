package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// watchLine is what the watch --leak-every tests read of a --json line.
type watchLine struct {
	Snapshot int        `json:"snapshot"`
	Groups   []watchRow `json:"groups"`
	Suspects []string   `json:"suspects"`
	Proven   []string   `json:"proven"`
	Leaked   int64      `json:"leaked"`
}

// rowIn returns the row of line whose top frame is in fn.
func rowIn(line watchLine, fn string) *watchRow {
	for i, r := range line.Groups {
		if strings.HasPrefix(r.Top, fn+" ") {
			return &line.Groups[i]
		}
	}
	return nil
}

// TestWatchLeakEvery watches a child built with Go 1.27.3 that leaks 5
// more goroutines before each snapshot (-grow 5; each blocked sending on a
// channel only it holds) beside 4 blocked on a reachable channel, taking
// the leak profile every 2nd snapshot: the growing group is a suspect and
// proven (JSON "proven", the row's "leaked", the table's marker, the final
// report, the stackdump_leaked_goroutines metric), the parked group is
// neither, and the full snapshots between keep the last proof.
func TestWatchLeakEvery(t *testing.T) {
	bin := buildLeakTarget(t, "go1.27.3")
	addr := startLeakTarget(t, bin, "-leaked", "3", "-parked", "4", "-grow", "5")
	target := "http://" + addr + "/debug/pprof/goroutine"
	stdout, stderr, err := runCLI(t, "watch", target, "--max-pause", "0", "--every", "10ms", "--count", "5", "--leak-every", "2", "--leak-after", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var lines []watchLine
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var wl watchLine
		if err := json.Unmarshal([]byte(l), &wl); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, wl)
	}
	if len(lines) != 5 {
		t.Fatalf("%d JSON lines, want 5:\n%s\n%s", len(lines), stdout, stderr)
	}
	// Snapshot 1 is a full capture before any leak profile: nothing proven.
	if lines[0].Leaked != 0 || len(lines[0].Proven) != 0 {
		t.Errorf("snapshot 1: leaked %d, proven %v; want none before the first leak profile", lines[0].Leaked, lines[0].Proven)
	}
	// Snapshot 2 is the leak profile: 3 + 2×5 leakSender goroutines.
	if s := rowIn(lines[1], "main.leakSender"); s == nil || s.Leaked != 13 || lines[1].Leaked != 13 {
		t.Errorf("snapshot 2 (the leak profile): leakSender row %+v, leaked %d; want 13 proven leaked", s, lines[1].Leaked)
	}
	for i, l := range lines[1:] {
		s, p := rowIn(l, "main.leakSender"), rowIn(l, "main.parkReceiver")
		if s == nil || p == nil {
			t.Fatalf("snapshot %d: no leakSender or parkReceiver row: %+v", i+2, l.Groups)
		}
		if s.Leaked < 13 || p.Leaked != 0 || p.Proven {
			t.Errorf("snapshot %d: leakSender leaked %d (want ≥ 13, kept between leak profiles), parkReceiver %+v (want not leaked)", i+2, s.Leaked, p)
		}
		// Growing in each of the last 2 snapshots needs 3 of them.
		if want := i+2 >= 3; s.Proven != want || slicesHas(l.Proven, s.Key) != want {
			t.Errorf("snapshot %d: leakSender proven %v, in proven %v: want %v", i+2, s.Proven, l.Proven, want)
		}
		if i+2 >= 3 && l.Groups[0].Key != s.Key {
			t.Errorf("snapshot %d: first row %s, want the growing proven leak first", i+2, l.Groups[0].Top)
		}
	}
	if last := lines[4]; last.Leaked != 23 {
		t.Errorf("snapshot 5 leaked %d, want 23 (the leak profile of snapshot 4: 3 + 4×5)", last.Leaked)
	}

	// The table marks it, and the final report names it as proven.
	addr = startLeakTarget(t, bin, "-leaked", "3", "-parked", "4", "-grow", "5")
	stdout, stderr, err = runCLI(t, "watch", "http://"+addr+"/debug/pprof/goroutine", "--max-pause", "0", "--every", "10ms", "--count", "4", "--leak-every", "2", "--leak-after", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "← leak: growing, 23 proven leaked") || !strings.Contains(stdout, "proven leak (23 leaked)") {
		t.Errorf("the table or report does not mark the growing group proven:\n%s", stdout)
	}

	// The metric: the last leak profile's count, kept by the full snapshot after it.
	addr = startLeakTarget(t, bin, "-leaked", "3", "-parked", "4", "-grow", "5")
	cmd := newWatchCommand()
	cmd.SetErr(new(strings.Builder))
	o := watchOptions{captureOptions: captureOptions{concurrency: 1, mode: "full", by: "stack", retries: -1, timeout: time.Minute, connectTimeout: 5 * time.Second, maxBytes: 2 << 30}, top: 5, leakAfter: 2, leakEvery: 2}
	w, err := newWatcher(cmd, []string{"http://" + addr + "/debug/pprof/goroutine"}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	w.metrics = newWatchMetrics()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := w.metrics.serve(ctx, ln, os.Stderr)
	defer func() { cancel(); wait() }()
	for round, want := range []float64{0, 13, 13} {
		w.round(ctx)
		got := one(t, scrape(t, "http://"+ln.Addr().String()+"/metrics"), "stackdump_leaked_goroutines", w.targets[0].raw)
		if got != want {
			t.Errorf("round %d: stackdump_leaked_goroutines %v, want %v", round+1, got, want)
		}
	}
}

// TestWatchLeakEveryWithoutProfile watches a child built with Go 1.26,
// which has no goroutine leak profile, with --leak-every 1: one warning
// naming the Go version the profile needs, then every snapshot is taken
// as a full capture, none fails, and watch exits 0. (The child grows
// before each debug=2 request, the refused leak request too.)
func TestWatchLeakEveryWithoutProfile(t *testing.T) {
	toolchain := "go1.26.8"
	if strings.HasPrefix(runtime.Version(), "go1.26") {
		toolchain = "local"
	}
	addr := startLeakTarget(t, buildLeakTarget(t, toolchain), "-leaked", "3", "-grow", "2")
	stdout, stderr, err := runCLI(t, "watch", "http://"+addr+"/debug/pprof/goroutine", "--max-pause", "0", "--every", "10ms", "--count", "4", "--leak-every", "1", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stderr, "needs a target built with Go 1.27"); n != 1 {
		t.Errorf("%d warnings naming Go 1.27, want one:\n%s", n, stderr)
	}
	if strings.Contains(stderr, "snapshot ") {
		t.Errorf("a snapshot failed:\n%s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d JSON lines, want 4:\n%s", len(lines), stdout)
	}
	var last watchLine
	if err := json.Unmarshal([]byte(lines[3]), &last); err != nil {
		t.Fatal(err)
	}
	if s := rowIn(last, "main.leakSender"); s == nil || s.Count != 3+5*2 || last.Leaked != 0 {
		t.Errorf("last snapshot: leakSender row %+v, leaked %d; want 13 goroutines (the refused leak request grew it too), none proven", s, last.Leaked)
	}
}

// slicesHas reports whether s holds v.
func slicesHas(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestWatchModeLeakWithoutProfile watches, with --mode leak (not
// --leak-every), a net/http/pprof target that answers the leak profile 404
// as a Go 1.26 net/http/pprof does: each snapshot asks for it once and
// fails saying so. Before, watch took --leak-every's fallback: it warned
// "--leak-every takes no more leak profiles" and asked again in the same
// leak mode, two failing leak captures per snapshot.
func TestWatchModeLeakWithoutProfile(t *testing.T) {
	var leakRequests atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/goroutineleak", func(w http.ResponseWriter, r *http.Request) {
		leakRequests.Add(1)
		http.Error(w, "Unknown profile", http.StatusNotFound) // net/http/pprof's answer
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, stderr, err := runCLI(t, "watch", srv.URL+"/debug/pprof/goroutine", "--mode", "leak", "--count", "2", "--every", "10ms", "--retries", "0")
	if err == nil {
		t.Fatalf("watch --mode leak of a target without the profile succeeded:\n%s", stderr)
	}
	if strings.Contains(stderr, "--leak-every") {
		t.Errorf("watch --mode leak warns about --leak-every, which was not given:\n%s", stderr)
	}
	if !strings.Contains(stderr, "snapshot 2 of") || !strings.Contains(stderr, "no goroutine leak profile") {
		t.Errorf("the failing snapshots are not reported:\n%s", stderr)
	}
	if n := leakRequests.Load(); n != 2 {
		t.Errorf("%d leak profile requests for 2 snapshots, want 2", n)
	}
}
