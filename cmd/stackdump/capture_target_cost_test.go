package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureOneConnection: one capture of a bare host:port (the endpoint
// probe, debug=1, then debug=2) opens one connection to the target,
// counted by the target itself; it used to open three, which stayed in
// the target's own dump as idle connections.
func TestCaptureOneConnection(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "50")
	out := filepath.Join(t.TempDir(), "d.json")
	if _, stderr, err := runCLI(t, "capture", "-q", child.addr, "-o", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	st := child.stats(t)
	if st.Connections != 1 || len(st.Requests) != 3 {
		t.Errorf("one capture: %d connections for %d requests %+v; want 1 connection for the probe, debug=1 and debug=2", st.Connections, len(st.Requests), st.Requests)
	}
	if d := readDumpFile(t, out)[0]; d.Total < 50 {
		t.Errorf("%d goroutines, want the child's 50 and more", d.Total)
	}
}

// TestCaptureTimeoutBoundsWholeCapture: a target that accepts and never
// answers (a stopped process's kernel still accepts) fails once --timeout
// has passed, retries included: one connection, not one per attempt (the
// probe used to be tried three times at --timeout each, then nothing
// else), and the error says the timeout bounds the whole capture.
func TestCaptureTimeoutBoundsWholeCapture(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "10", "-hang")
	_, stderr, err := runCLI(t, "capture", "-q", "--timeout", "1s", "--retries", "2", child.addr, "-o", filepath.Join(t.TempDir(), "d.json"))
	if err == nil {
		t.Fatal("a target that never answers gave a dump")
	}
	if st := child.stats(t); st.Connections != 1 {
		t.Errorf("%d connections to a target that never answers, want 1: --timeout bounds the whole capture", st.Connections)
	}
	for _, want := range []string{"stackdump: " + child.addr + ": ", "no answer within the 1s timeout from " + child.addr, "bounds the whole capture, retries included", "--timeout sets the bound"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	checkForPeople(t, stderr)
}

// TestCaptureRetryReasons: each attempt's reason is in the final error
// (it used to be the last one's alone); a capture whose first two attempts
// failed and the third succeeded succeeds.
func TestCaptureRetryReasons(t *testing.T) {
	child := startPauseTarget(t, "-goroutines", "10", "-fail-rounds", "1,2,3")
	target := "http://" + child.addr + "/debug/pprof/goroutine"
	_, stderr, err := runCLI(t, "capture", "-q", "--retries", "2", target, "-o", filepath.Join(t.TempDir(), "d.json"))
	if err == nil {
		t.Fatal("three failed attempts gave a dump")
	}
	for _, want := range []string{"3 attempts over ", "attempt 1: GET " + target + "?debug=1: 503 Service Unavailable: failing round 1", "attempt 2: ", "failing round 2", "attempt 3: ", "failing round 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// A fresh target whose first two debug=1 requests fail: the third
	// attempt is good.
	child = startPauseTarget(t, "-goroutines", "10", "-fail-rounds", "1,2")
	if _, stderr, err := runCLI(t, "capture", "-q", "--retries", "2", "http://"+child.addr+"/debug/pprof/goroutine", "-o", filepath.Join(t.TempDir(), "d.json")); err != nil {
		t.Errorf("two failed attempts of three: %v\n%s", err, stderr)
	}
}

// TestCaptureErrorsForPeople: a wrong port is named with what was tried
// and what to do, without the endpoint probe's internal URL, a bare
// "unexpected EOF" or "context canceled": nothing listening, and a real
// process that speaks another protocol there.
func TestCaptureErrorsForPeople(t *testing.T) {
	banner := startPauseTarget(t, "-goroutines", "1", "-banner")
	for _, tc := range []struct {
		target string
		want   []string
	}{
		{closedAddr(t), []string{"connection refused: nothing listens on ", "(3 attempts over ", "is the service running, and is this the port it serves net/http/pprof"}},
		{banner.addr, []string{banner.addr + " answered with something that is not HTTP", `"SSH-2.0-pausetarget`, "this is not the service's debug port"}},
	} {
		_, stderr, err := runCLI(t, "capture", "-q", "--retries", "2", tc.target, "-o", filepath.Join(t.TempDir(), "d.json"))
		if err == nil {
			t.Fatalf("%s: no error", tc.target)
		}
		if !strings.HasPrefix(stderr, "stackdump: "+tc.target+": ") {
			t.Errorf("%s: the error does not name the target first:\n%s", tc.target, stderr)
		}
		for _, want := range tc.want {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.target, want, stderr)
			}
		}
		checkForPeople(t, stderr)
		t.Logf("%s", stderr)
	}
}

// checkForPeople fails when an error message shows what a person cannot
// act on: the endpoint probe's URL, Go's URL error form, or a bare
// transport word.
func checkForPeople(t *testing.T, msg string) {
	t.Helper()
	for _, bad := range []string{"format=debug1", "mode=grouped", `Get "`, "unexpected EOF", "context canceled", "context deadline exceeded"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message shows %q:\n%s", bad, msg)
		}
	}
}
