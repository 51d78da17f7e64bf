package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWatchOneNumbering: a target whose 2nd snapshot fails is numbered
// alike on standard error and in the table: snapshot 2 failed, the next
// table is snapshot 3 (it used to be "snapshot 2", counting good ones).
func TestWatchOneNumbering(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "10", "-fail-rounds", "2")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	stdout, stderr, err := runCLI(t, "watch", target, "--every", "10ms", "--count", "3", "--retries", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "stackdump: snapshot 2 of "+target+" failed: ") {
		t.Errorf("stderr does not number the failed snapshot 2:\n%s", stderr)
	}
	for _, want := range []string{target + "  snapshot 1 at", target + "  snapshot 3 (1 failed) at", "2 snapshots; total", "; 1 of 3 failed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "snapshot 2 at") {
		t.Errorf("a table numbers a good snapshot 2, which failed:\n%s", stdout)
	}
}

// newTestWatcher is a watcher of targets as runWatch makes it, with
// metrics served on a loopback port; it returns the /metrics URL.
func newTestWatcher(t *testing.T, targets []string, maxPause time.Duration, o watchOptions) (*watcher, string) {
	t.Helper()
	cmd := newWatchCommand()
	cmd.SetErr(new(strings.Builder))
	o.captureOptions = captureOptions{concurrency: 2, mode: "full", by: "stack", retries: -1, timeout: time.Minute, connectTimeout: 5 * time.Second, maxBytes: 2 << 30, maxPause: maxPause}
	o.top, o.leakAfter = max(o.top, 5), max(o.leakAfter, 2)
	o.detailEvery = max(o.detailEvery, 1)
	w, err := newWatcher(cmd, targets, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.close)
	w.metrics = newWatchMetrics()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := w.metrics.serve(ctx, ln, os.Stderr)
	t.Cleanup(func() { cancel(); wait() })
	return w, "http://" + ln.Addr().String() + "/metrics"
}

// TestWatchMetricsDropStaleSeries: when a target's capture fails,
// stackdump_target_up is 0 and the series that describe its last snapshot
// (goroutines, states, groups, suspects, leaked, pauses) are gone, not
// left at their last value; a good snapshot has its pause, predicted and
// best known, in stackdump_capture_pause_*.
func TestWatchMetricsDropStaleSeries(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "20", "-fail-rounds", "2")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	w, url := newTestWatcher(t, []string{target}, 10*time.Millisecond, watchOptions{detailEvery: 10})
	ctx := context.Background()

	w.round(ctx)
	fams := scrape(t, url)
	if one(t, fams, "stackdump_target_up", target) != 1 || one(t, fams, "stackdump_goroutines", target) < 20 {
		t.Fatalf("round 1: target up %v, goroutines %v", one(t, fams, "stackdump_target_up", target), one(t, fams, "stackdump_goroutines", target))
	}
	if p := one(t, fams, "stackdump_capture_pause_seconds", target); p <= 0 {
		t.Errorf("round 1: stackdump_capture_pause_seconds %v, want the traceback's observed pause", p)
	}
	if p := one(t, fams, "stackdump_capture_pause_predicted_seconds", target); p <= 0 || p > 0.01 {
		t.Errorf("round 1: stackdump_capture_pause_predicted_seconds %v, want a prediction within the budget", p)
	}

	w.round(ctx) // the target answers 503
	fams = scrape(t, url)
	if one(t, fams, "stackdump_target_up", target) != 0 {
		t.Fatalf("round 2: target up after a failed capture")
	}
	for _, name := range []string{"stackdump_goroutines", "stackdump_goroutines_by_state", "stackdump_group_goroutines", "stackdump_leak_suspects", "stackdump_leaked_goroutines", "stackdump_capture_pause_seconds", "stackdump_capture_pause_predicted_seconds"} {
		if s := series(fams, name, target); len(s) > 0 {
			t.Errorf("round 2: %s still has %d series for a target that is down", name, len(s))
		}
	}
	if one(t, fams, "stackdump_capture_errors_total", target) != 1 {
		t.Errorf("round 2: errors %v", one(t, fams, "stackdump_capture_errors_total", target))
	}

	w.round(ctx) // back
	fams = scrape(t, url)
	if one(t, fams, "stackdump_target_up", target) != 1 || one(t, fams, "stackdump_goroutines", target) < 20 {
		t.Errorf("round 3: the series did not come back")
	}
}

// TestWatchWarnsWhenBehind: rounds against a target that takes 150 ms to
// answer each request cannot keep --every 50ms: the first such round is
// warned about once, and every one is counted in
// stackdump_watch_rounds_behind_total (it used to be silent).
func TestWatchWarnsWhenBehind(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "10", "-delay", "150ms")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	_, stderr, err := runCLI(t, "watch", target, "--every", "50ms", "--count", "3", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stderr, "longer than --every 50ms"); n != 1 || !strings.Contains(stderr, "warning: round 1 took") || !strings.Contains(stderr, "stackdump_watch_rounds_behind_total") {
		t.Errorf("%d warnings of a round behind --every, want one, naming the metric:\n%s", n, stderr)
	}

	w, url := newTestWatcher(t, []string{target}, 0, watchOptions{})
	for n := 1; n <= 2; n++ {
		w.round(context.Background())
		w.checkBehind(n, 50*time.Millisecond)
	}
	if got := one(t, scrape(t, url), "stackdump_watch_rounds_behind_total", ""); got != 2 {
		t.Errorf("stackdump_watch_rounds_behind_total %v after two rounds of ≥150ms at --every 50ms, want 2", got)
	}
}

// TestWatchKeepSaysWhenItDrops: --keep 2 over four snapshots removes the
// oldest files, and says so once, when it first does (it used to remove
// them without a word before timeline was run on them).
func TestWatchKeepSaysWhenItDrops(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "10")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	dir := filepath.Join(t.TempDir(), "snaps")
	_, stderr, err := runCLI(t, "watch", target, "--every", "10ms", "--count", "4", "--keep", "2", "-o", dir, "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stderr, "--keep 2: removing the oldest snapshot files"); n != 1 || !strings.Contains(stderr, dir) {
		t.Errorf("%d notices of --keep removing files, want one naming %s:\n%s", n, dir, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 2 {
		t.Errorf("%d files kept, want 2", len(files))
	}
}

// TestWatchJVMStatesNotCut watches a real JVM whose threads wait on a
// monitor: the table shows "WAITING (on object monitor)" whole (states
// used to be cut to 16 characters, "WAITING (on obj…"), and names the
// waiters by the code that waits, in Object.wait.
func TestWatchJVMStatesNotCut(t *testing.T) {
	pid := startParkedJVM(t)
	stdout, stderr, err := runCLI(t, "watch", "jvm:"+strconv.Itoa(pid), "--count", "1", "--top", "50")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !regexp.MustCompile(`\s3 +\+0 +\+0  WAITING \(on object monitor\) +Parked\.lambda\$main\$0 \(Parked\.java:\d+\) in java\.lang\.Object\.wait`).MatchString(stdout) || !strings.Contains(stdout, "TIMED_WAITING (sleeping) ") {
		t.Errorf("the parked waiters' row does not show their whole state:\n%s", stdout)
	}
	if strings.Contains(stdout, "…") {
		t.Errorf("a state is cut:\n%s", stdout)
	}
}

// startParkedJVM runs remote/testdata/Parked.java (three threads waiting
// on one monitor) until the test ends and returns its pid; it skips
// without a JDK.
func startParkedJVM(t *testing.T) int {
	t.Helper()
	for _, tool := range []string{"javac", "java", "jcmd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: JVM watch not tested", tool)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "-d", dir, "../../remote/testdata/Parked.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command("java", "-Xmx64m", "-XX:+UseSerialGC", "-cp", dir, "Parked")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 64)
	n, _ := stdout.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "ready") {
		t.Fatalf("the JVM did not start: %q", buf[:n])
	}
	return cmd.Process.Pid
}
