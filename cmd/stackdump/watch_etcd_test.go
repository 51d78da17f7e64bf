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
	"testing"
	"time"
)

// startEtcd runs Debian's etcd (etcd-server, installed by .ci/run) with
// --enable-pprof on two loopback ports until the test ends, and returns
// its client and peer addresses; it skips where etcd is missing.
func startEtcd(t *testing.T) (client, peer string) {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("etcd not installed (apt-get install etcd-server): the real-server test is skipped")
	}
	client, peer = closedAddr(t), closedAddr(t)
	cmd := exec.Command(bin, "--name", "t", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", "http://"+peer, "--initial-advertise-peer-urls", "http://"+peer,
		"--initial-cluster", "t=http://"+peer, "--enable-pprof")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := &http.Client{Timeout: time.Second}
	for range 200 {
		if resp, err := c.Get("http://" + client + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return client, peer
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("etcd did not become healthy within 20s")
	return "", ""
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
