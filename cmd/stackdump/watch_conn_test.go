package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// pprofConnServer serves net/http/pprof on 127.0.0.1 and counts the
// connections it accepts.
func pprofConnServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestWatchKeepsOneConnection watches a static target eight times, through
// a bare base URL (probed for stackdump's endpoint, which answers 404): the
// snapshots share a kept-alive connection, so the target's goroutines stay
// flat and no group is flagged.
func TestWatchKeepsOneConnection(t *testing.T) {
	srv, conns := pprofConnServer(t)
	stdout, stderr, err := runCLI(t, "watch", srv.URL, "--every", "10ms", "--count", "8", "--leak-after", "3", "--json", "--top", "100")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := conns.Load(); n > 2 {
		t.Errorf("eight snapshots opened %d connections, want at most 2", n)
	}
	var totals []int64
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var snap struct {
			Total    int64    `json:"total"`
			Suspects []string `json:"suspects"`
			Groups   []struct {
				Top string `json:"top"`
			} `json:"groups"`
		}
		if err := json.Unmarshal([]byte(line), &snap); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if len(snap.Suspects) > 0 {
			t.Errorf("snapshot %d flags %v as leak suspects of a static target:\n%s", len(totals)+1, snap.Suspects, line)
		}
		totals = append(totals, snap.Total)
	}
	if len(totals) != 8 {
		t.Fatalf("%d snapshots, want 8", len(totals))
	}
	// The target is this test process, so its dump holds watch's own
	// goroutines too; from the second snapshot on (the connection is then
	// open) the total stays within a goroutine or two.
	if lo, hi := slices.Min(totals[1:]), slices.Max(totals[1:]); hi-lo > 2 {
		t.Errorf("goroutine totals %v grow while watched", totals)
	}
}
