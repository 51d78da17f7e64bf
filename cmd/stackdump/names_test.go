package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// primitiveNames are the runtime's and the JDK's waiting primitives that
// used to name groups: none may name a group of a program whose own code
// is on the stack.
var primitiveNames = []string{
	"internal/sync.runtime_SemacquireMutex", "sync.runtime_notifyListWait", "internal/poll.runtime_pollWait",
	"runtime.gopark", "time.Sleep (", "sun.misc.Unsafe.park", "jdk.internal.misc.Unsafe.park",
	"java.lang.VirtualThread.park", "java.util.concurrent.locks.LockSupport.park",
}

// checkNamedByCode fails when a table row of out names its group by a
// waiting primitive rather than the code that waits.
func checkNamedByCode(t *testing.T, what, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		for _, p := range primitiveNames {
			if i := strings.Index(l, p); i >= 0 && !strings.Contains(l[:i], " in ") {
				t.Errorf("%s: a group named by the primitive %s: %q", what, p, l)
			}
		}
	}
}

// TestGroupNamesOneRule: capture's summary, watch's table, diff and the
// Prometheus func label name the groups of a real Go program (goroutines
// parked on a mutex, a sleep, a channel and a select) by the program's
// code that waits — main.deep — with the primitive as detail ("in
// sync.(*Mutex).Lock"), as analyze does, never by the runtime's primitive
// (internal/sync.runtime_SemacquireMutex, time.Sleep).
func TestGroupNamesOneRule(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "40", "-depth", "0")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	dir := t.TempDir()
	before := filepath.Join(dir, "before.json")
	summary, stderr, err := runCLI(t, "capture", target, "-o", before)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkNamedByCode(t, "capture's summary", summary)
	if !strings.Contains(summary, "sync.Mutex.Lock  main.deep (main.go:") || !strings.Contains(summary, ") in sync.(*Mutex).Lock") {
		t.Errorf("capture's summary does not name the mutex waiters by main.deep, in sync.(*Mutex).Lock:\n%s", summary)
	}

	table, stderr, err := runCLI(t, "watch", target, "--count", "1", "--top", "20")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkNamedByCode(t, "watch's table", table)
	if !strings.Contains(table, "STATE           WHERE") || !strings.Contains(table, "sync.Mutex.Lock main.deep (main.go:") {
		t.Errorf("watch's table:\n%s", table)
	}

	// The same program with twice the goroutines: diff names what grew.
	bigger := startPauseTarget(t, "-goroutines", "80", "-depth", "0")
	after := filepath.Join(dir, "after.json")
	if _, stderr, err := runCLI(t, "capture", "-q", "http://"+bigger.addr+"/debug/pprof/goroutine", "-o", after); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	diff, stderr, err := runCLI(t, "diff", before, after)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkNamedByCode(t, "diff", diff)
	if !strings.Contains(diff, "WHERE") || !strings.Contains(diff, "sync.Mutex.Lock  main.deep (main.go:") {
		t.Errorf("diff does not name the grown mutex waiters by main.deep:\n%s", diff)
	}

	w, url := newTestWatcher(t, []string{target}, 10*time.Millisecond, watchOptions{top: 20})
	w.round(t.Context())
	fams := scrape(t, url)
	funcs := map[string]bool{}
	for _, m := range fams["stackdump_group_goroutines"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "func" {
				funcs[l.GetValue()] = true
			}
		}
	}
	if !funcs["main.deep"] || funcs["internal/sync.runtime_SemacquireMutex"] || funcs["time.Sleep"] {
		t.Errorf("stackdump_group_goroutines func labels %v: want main.deep, no primitive", funcs)
	}
}

// startZooKeeper runs Debian's ZooKeeper standalone (its jar, with java)
// on a loopback port, idle, until the test ends, and returns its pid.
func startZooKeeper(t *testing.T) int {
	t.Helper()
	java, err := exec.LookPath("java")
	const jar = "/usr/share/java/zookeeper.jar"
	if _, serr := os.Stat(jar); err != nil || serr != nil {
		t.Skipf("java or %s is missing (apt-get install default-jdk-headless zookeeper): skipped", jar)
	}
	addr := closedAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(java, "-Xmx64m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.clientPortAddress=127.0.0.1", "-cp", jar, "org.apache.zookeeper.server.ZooKeeperServerMain", port, t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd.Process.Pid
		}
	}
	t.Fatal("ZooKeeper did not listen within 30s")
	return 0
}

// TestGroupNamesJVM: ZooKeeper's parked threads are named by the
// ZooKeeper code that parked them (RequestThrottler.run,
// SyncRequestProcessor.run, … in LinkedBlockingQueue.take), not as rows
// of identical Unsafe.park, in capture's summary and watch's table.
func TestGroupNamesJVM(t *testing.T) {
	pid := startZooKeeper(t)
	target := "jvm:" + strconv.Itoa(pid)
	summary, stderr, err := runCLI(t, "capture", target, "-o", filepath.Join(t.TempDir(), "zk.txt"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkNamedByCode(t, "capture's summary", summary)
	table, stderr, err := runCLI(t, "watch", target, "--count", "1", "--top", "30")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	checkNamedByCode(t, "watch's table", table)
	seen := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(table))
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, "WAITING (parking)") {
			seen[l[strings.Index(l, "WAITING (parking)"):]]++
		}
	}
	if len(seen) < 3 || !strings.Contains(table, "org.apache.zookeeper.server.") || !strings.Contains(table, " in java.util.concurrent.LinkedBlockingQueue.take") {
		t.Errorf("ZooKeeper's parked threads are not named by ZooKeeper's code:\n%s", table)
	}
	for row, n := range seen {
		if n > 1 {
			t.Errorf("%d identical rows %q:\n%s", n, row, table)
		}
	}
}
