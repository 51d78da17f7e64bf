package main

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/remote"
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

// TestWatchPauseBudgetEtcd watches and captures a real third-party Go
// server, etcd 3.4 with --enable-pprof, which serves no
// /debug/pprof/trace: default watch takes a traceback only when it is
// predicted within 10ms, its counts otherwise; capture --max-pause below
// the traceback's prediction writes the counts and says why; its peer
// port, HTTP without pprof, is told as such.
func TestWatchPauseBudgetEtcd(t *testing.T) {
	client, peer := startEtcd(t)
	stdout, stderr, err := runCLI(t, "watch", "http://"+client+"/debug/pprof/goroutine", "--every", "10ms", "--count", "3", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := parseBudgetLines(t, stdout)
	if len(lines) != 3 {
		t.Fatalf("%d snapshots, want 3", len(lines))
	}
	for _, l := range lines {
		c := l.Capture
		if time.Duration(c.PausePredictedNs) > 10*time.Millisecond || c.Mode == "trace" {
			t.Errorf("snapshot %d of etcd: %+v; want no capture predicted over the budget, and no trace (etcd serves none)", l.Snapshot, c)
		}
		t.Logf("snapshot %d: %d goroutines, %s", l.Snapshot, l.Total, c.text())
	}
	if fits := time.Duration(lines[0].Total)*remote.PriorFullCostPerGoroutine <= 10*time.Millisecond; fits != (lines[0].Capture.Mode == "full") {
		t.Errorf("first snapshot of %d goroutines: %s; want full exactly when %d × %v fits 10ms", lines[0].Total, lines[0].Capture.Mode, lines[0].Total, remote.PriorFullCostPerGoroutine)
	}

	out := filepath.Join(t.TempDir(), "etcd.json")
	_, stderr, err = runCLI(t, "capture", "-q", "--max-pause", "1ms", client, "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "over --max-pause 1ms; writing complete counts per stack") || !strings.Contains(stderr, "the target serves no /debug/pprof/trace") {
		t.Errorf("--max-pause 1ms on etcd: stderr does not say the counts replaced the traceback:\n%s", stderr)
	}
	if d := readDumpFile(t, out)[0]; !d.Truncated || d.Source.Capture == nil || len(d.Source.Capture.Methods) != 1 || d.Source.Capture.Methods[0] != "debug1" {
		t.Errorf("--max-pause 1ms on etcd: truncated %v, capture %+v; want the counts, marked truncated", d.Truncated, d.Source.Capture)
	}

	_, stderr, err = runCLI(t, "capture", "-q", peer, "-o", filepath.Join(t.TempDir(), "peer.json"))
	if err == nil || !strings.Contains(stderr, peer+" serves HTTP, but no goroutine dump") || !strings.Contains(stderr, "/debug/pprof/goroutine: 404 Not Found") {
		t.Errorf("etcd's peer port: err %v, stderr:\n%s\nwant it told as HTTP without a goroutine dump", err, stderr)
	}
	checkForPeople(t, stderr)
}
