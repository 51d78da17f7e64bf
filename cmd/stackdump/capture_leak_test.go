package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// buildLeakTarget builds testdata/gen/leaktarget with toolchain (a
// GOTOOLCHAIN value) and returns the binary; it skips the test when the
// toolchain cannot be fetched.
func buildLeakTarget(t *testing.T, toolchain string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leaktarget")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/gen/leaktarget")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "toolchain") || strings.Contains(string(out), "download") {
			t.Skipf("toolchain %s cannot be fetched here: %s", toolchain, out)
		}
		t.Fatalf("building the leak target with %s: %v\n%s", toolchain, err, out)
	}
	return bin
}

// startLeakTarget starts a leak target with its flags and returns its address.
func startLeakTarget(t *testing.T, bin string, args ...string) string {
	t.Helper()
	child := exec.Command(bin, args...)
	return startAddrChild(t, child)
}

// TestCaptureLeakMode captures a child built with Go 1.27.3 that leaks 6
// goroutines (each blocked sending on a channel only it holds) beside 4
// blocked on a reachable channel: through net/http/pprof's
// /debug/pprof/goroutineleak and through stackdump's endpoint (given, and
// found from the bare address), the 6 and only they are marked leaked, in
// JSON and in text; the endpoint's dedupe=1 JSON gives their group
// "leaked":6.
func TestCaptureLeakMode(t *testing.T) {
	addr := startLeakTarget(t, buildLeakTarget(t, "go1.27.3"), "-leaked", "6", "-parked", "4")
	for _, tc := range []struct{ target, endpoint string }{
		{"http://" + addr + "/debug/pprof/goroutine", ""},
		{"http://" + addr + "/debug/stackdump", "/debug/stackdump"},
		{addr, ""},
	} {
		dir := t.TempDir()
		args := []string{"capture", "-q", "--mode", "leak", tc.target, "-o", filepath.Join(dir, "leak.json")}
		if tc.endpoint != "" {
			args = append(args, "--endpoint", tc.endpoint)
		}
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("%s: %v\n%s", tc.target, err, stderr)
		}
		d := readDumpFile(t, filepath.Join(dir, "leak.json"))[0]
		leaked, parked := 0, 0
		for _, r := range d.Routines {
			fs := r.Frames()
			if len(fs) == 0 {
				continue
			}
			switch {
			case slicesHasFunc(fs, "main.leakSender"):
				if !r.Leaked || r.State != "chan send" {
					t.Errorf("%s: goroutine %d in leakSender: leaked %v, state %q; want leaked, chan send", tc.target, r.ID, r.Leaked, r.State)
				}
				leaked++
			case r.Leaked:
				t.Errorf("%s: goroutine %d [%s] in %s marked leaked", tc.target, r.ID, r.State, fs[0].Func)
			case slicesHasFunc(fs, "main.parkReceiver"):
				parked++
			}
		}
		if leaked != 6 || parked != 4 {
			t.Errorf("%s: %d leakSender and %d parkReceiver goroutines, want 6 and 4", tc.target, leaked, parked)
		}
		if c := d.Source.Capture; c == nil || c.Mode != "leak" {
			t.Errorf("%s: source.capture %+v, want mode leak", tc.target, c)
		}
	}
	txt := filepath.Join(t.TempDir(), "leak.txt")
	if _, stderr, err := runCLI(t, "capture", "-q", "--mode", "leak", addr, "-o", txt); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, _ := os.ReadFile(txt)
	if n := strings.Count(string(b), "[chan send (leaked)]"); n != 6 {
		t.Errorf("text output has %d [chan send (leaked)] headers, want 6", n)
	}
	// The endpoint's grouped JSON carries the group's proven count.
	resp, err := http.Get("http://" + addr + "/debug/stackdump?mode=leak&format=json&dedupe=1&compress=none")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := groupsLeaked(t, body); len(got) != 1 || got["main.leakSender"] != 6 {
		t.Errorf("endpoint mode=leak dedupe=1: %s, leaked per group %v; want main.leakSender 6 and no other", resp.Status, got)
	}
}

// slicesHasFunc reports whether a frame of fs is in function fn.
func slicesHasFunc(fs []*stack.Frame, fn string) bool {
	for _, f := range fs {
		if f.Func == fn {
			return true
		}
	}
	return false
}

// TestCaptureLeakModeOldGo captures a child built with Go 1.26, which has
// no goroutine leak profile, with --mode leak: through net/http/pprof and
// through stackdump's endpoint the capture fails with an error naming the
// Go version the mode needs, also when the target has more goroutines than
// the leak bound (which used to advise raising the bound).
func TestCaptureLeakModeOldGo(t *testing.T) {
	toolchain := "go1.26.8"
	if strings.HasPrefix(runtime.Version(), "go1.26") {
		toolchain = "local"
	}
	addr := startLeakTarget(t, buildLeakTarget(t, toolchain))
	for _, args := range [][]string{
		{"http://" + addr + "/debug/pprof/goroutine"},
		{addr}, // the endpoint is found, answers 404, and pprof is asked
		{"--endpoint", "/debug/stackdump", "http://" + addr + "/debug/stackdump"},
	} {
		args = append([]string{"capture", "-q", "--mode", "leak", "-o", filepath.Join(t.TempDir(), "x.json")}, args...)
		_, stderr, err := runCLI(t, args...)
		if err == nil || !strings.Contains(stderr, "needs a target built with Go 1.27 or newer") {
			t.Errorf("%v: err = %v, stderr %q; want a failure naming Go 1.27", args, err, stderr)
		}
		t.Logf("%v:\n%s", args, stderr)
	}
	// Over the leak bound, too, the reason is the Go version, not the
	// bound: raising it would only meet the 404.
	args := []string{"capture", "-q", "--mode", "leak", "--leak-max-goroutines", "3", "-o", filepath.Join(t.TempDir(), "x.json"), "http://" + addr + "/debug/pprof/goroutine"}
	_, stderr, err := runCLI(t, args...)
	if err == nil || !strings.Contains(stderr, "needs a target built with Go 1.27 or newer") || strings.Contains(stderr, "raise the bound") {
		t.Errorf("%v: err = %v, stderr %q; want a failure naming Go 1.27 and no advice to raise the bound", args, err, stderr)
	}
	t.Logf("%v:\n%s", args, stderr)
}
