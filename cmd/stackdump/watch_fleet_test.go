package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestWatchFailsWhenNoSnapshot: a target that is unreachable or answers 404
// gives no snapshot, and watch exits 1 as capture does.
func TestWatchFailsWhenNoSnapshot(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	for name, target := range map[string]string{
		"unreachable": closedAddr(t),
		"404":         notFound.URL + "/debug/pprof/goroutine",
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, "watch", target, "--every", "10ms", "--count", "2", "--retries", "-1")
			var ee exitError
			if !errors.As(err, &ee) || ee.code != 1 {
				t.Fatalf("watch of a target that gave no snapshot: err %v, want exit status 1\n%s%s", err, stdout, stderr)
			}
			if !strings.Contains(stderr, "snapshot 2 of "+target) || !strings.Contains(stdout, "no snapshot taken") {
				t.Errorf("failures not reported:\nstdout: %s\nstderr: %s", stdout, stderr)
			}
		})
	}
	help, _, _ := runCLI(t, "watch", "--help")
	if !strings.Contains(help, "Exit status: 0 when every target gave at least one snapshot; 1 when any") {
		t.Errorf("--help does not say the exit status:\n%s", help)
	}
}

// TestWatchManyTargets watches three targets given as arguments and in a
// --targets file: each has its own table, history and files; the failing
// one is reported without stopping the others, and the exit status is 1.
func TestWatchManyTargets(t *testing.T) {
	grow := growingServer(t, 5)
	static, _ := pprofConnServer(t)
	down := closedAddr(t)
	list := filepath.Join(t.TempDir(), "targets.txt")
	if err := os.WriteFile(list, []byte("# fleet\n"+static.URL+"\n"+down+" # gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snaps")
	stdout, stderr, err := runCLI(t, "watch", grow.URL, "--max-pause", "0", "--targets", list, "--every", "10ms", "--count", "4",
		"--leak-after", "2", "--json", "--retries", "-1", "--concurrency", "2", "-o", dir, "--keep", "2")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err %v, want exit status 1 for the unreachable target\n%s", err, stderr)
	}
	if n := strings.Count(stderr, "of "+down+" failed: "); n != 4 {
		t.Errorf("%d failures of %s reported, want one per round (4):\n%s", n, down, stderr)
	}
	last := map[string]struct {
		Snapshot int      `json:"snapshot"`
		Suspects []string `json:"suspects"`
		Groups   []watchRow
	}{}
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var snap struct {
			Target   string     `json:"target"`
			Snapshot int        `json:"snapshot"`
			Suspects []string   `json:"suspects"`
			Groups   []watchRow `json:"groups"`
		}
		if err := json.Unmarshal([]byte(line), &snap); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		last[snap.Target] = struct {
			Snapshot int      `json:"snapshot"`
			Suspects []string `json:"suspects"`
			Groups   []watchRow
		}{snap.Snapshot, snap.Suspects, snap.Groups}
	}
	if len(last) != 2 || last[grow.URL].Snapshot != 4 || last[static.URL].Snapshot != 4 {
		t.Fatalf("want 4 snapshots of each reachable target, got %+v", last)
	}
	if len(last[grow.URL].Suspects) == 0 {
		t.Errorf("the growing target has no suspect")
	}
	for _, g := range last[grow.URL].Groups {
		if strings.Contains(g.Top, "watchedWorker") && (g.Count != 20 || !g.Suspect) {
			t.Errorf("growing group %+v, want a suspect of 20", g)
		}
	}
	files, _ := os.ReadDir(dir)
	hosts := map[string]int{}
	for _, f := range files {
		host, _, _ := strings.Cut(f.Name(), "-")
		hosts[host]++
	}
	if len(files) != 4 || len(hosts) != 2 {
		t.Errorf("files %v, want --keep 2 per reachable target", files)
	}
}

// TestWatchHistoryBounded feeds a history 1,000 snapshots of a dump whose
// group set changes every time: it follows at most 2×top groups with
// leakAfter+1 counts each, and still flags the group that keeps growing.
func TestWatchHistoryBounded(t *testing.T) {
	d := readDumpFile(t, corpusPath(debug1Corpus))
	base := dedupe.Group(d[0], dedupe.Options{})
	if len(base) < 8 {
		t.Fatalf("%d groups in the corpus dump, want 8 or more", len(base))
	}
	const top, leakAfter = 3, 2
	h := newWatchHistory(top, leakAfter)
	leakKey := base[len(base)-1].Key // the smallest group grows by one each time
	for i := range 1000 {
		var groups []*stack.Group
		for j, g := range base {
			c := *g
			switch {
			case c.Key == leakKey:
				c.Count = int64(i + 1)
			case j%2 == 0:
				c.Key = fmt.Sprintf("%s-%d", g.Key, i) // a group that comes and goes
			}
			groups = append(groups, &c)
		}
		h.add(i+1, int64(i), groups, false)
		if len(h.series) > 2*top || len(h.totals) > leakAfter+1 {
			t.Fatalf("snapshot %d: %d groups followed, %d totals kept", i+1, len(h.series), len(h.totals))
		}
		for _, s := range h.series {
			if len(s.counts) > leakAfter+1 {
				t.Fatalf("snapshot %d: %d counts kept for a group", i+1, len(s.counts))
			}
		}
		if len(h.prev) != len(groups) {
			t.Fatalf("snapshot %d: %d previous counts for %d groups", i+1, len(h.prev), len(groups))
		}
	}
	if !h.suspect(leakKey, leakAfter) {
		t.Errorf("the growing group %s is not a suspect; followed: %v", leakKey, h.rows(leakAfter))
	}
}
