package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// etcdServer is Debian's etcd running for a test.
type etcdServer struct {
	client, peer string // its client and peer addresses
	bin, dir     string
	stop         func()
}

// startEtcd runs Debian's etcd (etcd-server, installed by .ci/run) with
// --enable-pprof on two loopback ports until the test ends, and returns
// its client and peer addresses; it skips where etcd is missing.
func startEtcd(t *testing.T) (client, peer string) {
	e := startEtcdServer(t)
	return e.client, e.peer
}

// startEtcdServer is startEtcd, returning the server to restart.
func startEtcdServer(t *testing.T) *etcdServer {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("etcd not installed (apt-get install etcd-server): the real-server test is skipped")
	}
	e := &etcdServer{client: closedAddr(t), peer: closedAddr(t), bin: bin, dir: filepath.Join(t.TempDir(), "etcd")}
	e.start(t)
	return e
}

// start runs e's etcd on its addresses and data directory and waits until
// it is healthy.
func (e *etcdServer) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(e.bin, "--name", "t", "--data-dir", e.dir,
		"--listen-client-urls", "http://"+e.client, "--advertise-client-urls", "http://"+e.client,
		"--listen-peer-urls", "http://"+e.peer, "--initial-advertise-peer-urls", "http://"+e.peer,
		"--initial-cluster", "t=http://"+e.peer, "--enable-pprof")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e.stop = sync.OnceFunc(func() { cmd.Process.Kill(); cmd.Wait() })
	t.Cleanup(e.stop)
	c := &http.Client{Timeout: time.Second}
	for range 200 {
		if resp, err := c.Get("http://" + e.client + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("etcd did not become healthy within 20s")
}

// openEtcdWatches opens n watch streams on etcd's gRPC gateway (POST
// /v3/watch, one HTTP stream each, which etcd serves with a gRPC watch
// stream of its own: about six goroutines per watch) until the test ends.
func openEtcdWatches(t *testing.T, client string, n int) {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	for i := range n {
		body := fmt.Sprintf(`{"create_request": {"key": %q}}`, base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "key-%d", i)))
		resp, err := c.Post("http://"+client+"/v3/watch", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
		// The stream answers once with the watch's creation, then holds.
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
	}
}

// TestWatchPauseBudgetEtcd watches and captures a real third-party Go
// server, etcd 3.4 with --enable-pprof, which serves no
// /debug/pprof/trace. Idle (about 40 goroutines) its first snapshot is
// the full traceback, predicted at the prior cost and measured; with 100
// watch streams (about 640 goroutines) a traceback is predicted over
// 10ms, and the counts stand in: not marked truncated (the counts are
// complete), the target's lack of a trace said once on standard error and
// in each capture line, and in --json's capture.no_trace. capture
// --max-pause 1ms writes the counts and says why; its peer port, HTTP
// without pprof, is told as such.
func TestWatchPauseBudgetEtcd(t *testing.T) {
	client, peer := startEtcd(t)
	stdout, stderr, err := runCLI(t, "watch", "http://"+client+"/debug/pprof/goroutine", "--every", "10ms", "--count", "2", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := parseBudgetLines(t, stdout)
	if c := lines[0].Capture; c.Mode != "full" || c.FullPredictedNs <= 0 || time.Duration(c.FullPredictedNs) > 10*time.Millisecond || c.Model == nil || c.Model.Measured != 1 {
		t.Errorf("idle etcd's first snapshot of %d goroutines: %s; want the full capture, predicted within 10ms at the prior, and learned from", lines[0].Total, c.text())
	}
	t.Logf("idle etcd: %d goroutines, %s", lines[0].Total, lines[0].Capture.text())

	openEtcdWatches(t, client, 100)
	stdout, stderr, err = runCLI(t, "watch", "http://"+client+"/debug/pprof/goroutine", "--every", "10ms", "--count", "3", "--json", "--detail-every", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines = parseBudgetLines(t, stdout)
	if len(lines) != 3 {
		t.Fatalf("%d snapshots, want 3", len(lines))
	}
	for _, l := range lines {
		c := l.Capture
		if time.Duration(c.PausePredictedNs) > 10*time.Millisecond || c.Mode != "counts" || !c.NoTrace {
			t.Errorf("snapshot %d of etcd: %+v; want the counts, nothing predicted over the budget, no trace", l.Snapshot, c)
		}
		t.Logf("snapshot %d: %d goroutines, %s", l.Snapshot, l.Total, c.text())
	}
	if lines[0].Total < 600 || !strings.HasSuffix(lines[0].Capture.Why, "over --max-pause 10ms, and the target serves no trace snapshot: counts per stack only") ||
		!strings.Contains(lines[2].Capture.Why, "and the target serves no trace snapshot") {
		t.Errorf("snapshots 1 and 3 (detail wanted): %q, %q; want each to say the counts stand for detail the target cannot give", lines[0].Capture.Why, lines[2].Capture.Why)
	}
	if n := strings.Count(stderr, "serves no execution-trace snapshot"); n != 1 {
		t.Errorf("the missing trace was said %d times on standard error, want once:\n%s", n, stderr)
	}

	out := filepath.Join(t.TempDir(), "etcd.json")
	_, stderr, err = runCLI(t, "capture", "-q", "--max-pause", "1ms", client, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "over --max-pause 1ms; writing complete counts per stack") || !strings.Contains(stderr, "the target serves no /debug/pprof/trace") {
		t.Errorf("--max-pause 1ms on etcd: stderr does not say the counts replaced the traceback:\n%s", stderr)
	}
	if d := readDumpFile(t, out)[0]; d.Truncated || len(d.Warnings) > 0 || d.Source.Capture == nil || !slices.Equal(d.Source.Capture.Methods, []string{"debug1"}) || !slices.Contains(d.Source.Capture.Missing, "state") {
		t.Errorf("--max-pause 1ms on etcd: truncated %v, warnings %v, capture %+v; want the complete counts, states named missing", d.Truncated, d.Warnings, d.Source.Capture)
	}
	// What analyze says of them: complete counts, not a cut dump.
	aout, _, err := runCLI(t, "analyze", out)
	if err != nil || strings.Contains(aout, "TRUNCATED") || strings.Contains(aout, "lower bound") {
		t.Errorf("analyze of etcd's counts (err %v) calls them cut:\n%s", err, aout)
	}

	_, stderr, err = runCLI(t, "capture", "-q", peer, "-o", filepath.Join(t.TempDir(), "peer.json"))
	if err == nil || !strings.Contains(stderr, peer+" serves HTTP, but no goroutine dump") || !strings.Contains(stderr, "/debug/pprof/goroutine: 404 Not Found") {
		t.Errorf("etcd's peer port: err %v, stderr:\n%s\nwant it told as HTTP without a goroutine dump", err, stderr)
	}
	checkForPeople(t, stderr)
}

// TestWatchRestartedEtcd: Debian's etcd, after serving 2,000 connections
// (each one a goroutine, so its goroutine ids are past 2,000), is killed
// and started again on the same ports and data: watch's next snapshot is
// of a new process, said as such, and its history starts there.
func TestWatchRestartedEtcd(t *testing.T) {
	e := startEtcdServer(t)
	for i := range 2000 {
		// A new connection each: a goroutine each in etcd.
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
		resp, err := c.Get("http://" + e.client + "/health")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
	}
	target := "http://" + e.client + "/debug/pprof/goroutine"
	o := watchOptions{detailEvery: 1, top: 5, leakAfter: 2}
	// A budget every traceback of etcd fits, however loaded the machine
	// (a restart is told from goroutine ids, which the counts lack): what
	// is tested is the restart, not the budget.
	w, url := newTestWatcher(t, []string{target}, time.Second, o)
	first, table := watchRound(t, w, o)
	if first.Restarted != "" || first.Capture.Mode != "full" {
		t.Fatalf("first snapshot: %+v\n%s", first, table)
	}
	e.stop()
	e.start(t)
	l, table := watchRound(t, w, o)
	t.Logf("after the restart:\n%s", table)
	if !strings.HasPrefix(l.Restarted, "goroutine ids started again") || l.HistoryFrom != 2 || l.Restarts != 1 || !strings.Contains(table, "a new process: its history starts here") {
		t.Errorf("snapshot of the restarted etcd: %+v; want a new history, said", l)
	}
	if n := one(t, scrape(t, url), "stackdump_target_restarts_total", target); n != 1 {
		t.Errorf("stackdump_target_restarts_total %v, want 1", n)
	}
	if l, _ := watchRound(t, w, o); l.Restarted != "" || l.HistoryFrom != 2 {
		t.Errorf("the next snapshot of the same etcd: %+v", l)
	}
}
