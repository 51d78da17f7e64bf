package leakcheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goTest runs `go test` on testdata/leaky with toolchain ("local" or a
// version such as "go1.27.3") and LEAKCHECK_CHILD=child; it returns the
// output and whether the tests passed.
func goTest(t *testing.T, toolchain, child, run string) (string, bool) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	cmd := exec.Command(goBin, "test", "-count=1", "-run", run, "./testdata/leaky")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain, "LEAKCHECK_CHILD="+child, "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	return string(out), err == nil
}

// needToolchain skips t unless `go` can run toolchain here (downloaded
// before, or fetchable).
func needToolchain(t *testing.T, toolchain string) {
	t.Helper()
	cmd := exec.Command("go", "version")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), toolchain+" ") {
		t.Skipf("toolchain %s cannot be fetched here: %v %s", toolchain, err, out)
	}
}

func TestGoTestLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	checkChild(t, "local", false)
}

// On Go 1.27 the leak profile proves the channel leaks at the first look.
func TestGoTestGo127(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary with Go 1.27")
	}
	needToolchain(t, "go1.27.3")
	checkChild(t, "go1.27.3", true)
}

func checkChild(t *testing.T, toolchain string, proves bool) {
	if out, ok := goTest(t, toolchain, "", "."); !ok || !strings.Contains(out, "ok") {
		t.Fatalf("clean tests failed on %s:\n%s", toolchain, out)
	}
	out, ok := goTest(t, toolchain, "leaky", "TestLeaky")
	if ok {
		t.Fatalf("leaky test passed on %s:\n%s", toolchain, out)
	}
	t.Logf("%s:\n%s", toolchain, out)
	if n := strings.Count(out, "\n"); n > 40 {
		t.Errorf("report of 10000 goroutines in 3 shapes took %d lines", n)
	}
	want := []string{"--- FAIL: TestLeaky", "found unexpected goroutines:\n", "10000 goroutines in 3 groups", "leaky.sendForever", "leaky.selectForever", "leaky.sleepLong", "2000 [sleep]"}
	if proves {
		want = append(want, "8000 of them proven leaked", "at the first look", "5000 proven leaked [chan send]", "3000 proven leaked [select]")
	} else {
		want = append(want, "5000 [chan send]", "3000 [select]", "still there after 20 retries")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: output lacks %q", toolchain, w)
		}
	}
	if !proves && strings.Contains(out, "proven") {
		t.Errorf("%s: proof claimed without the leak profile", toolchain)
	}
	out, ok = goTest(t, toolchain, "main", "TestLeakAtMain")
	if ok || !strings.Contains(out, "goleak: Errors on successful test run: found unexpected goroutines:\n1 goroutine in 1 group") {
		t.Errorf("%s: VerifyTestMain did not fail the run:\n%s", toolchain, out)
	}
}

// TestVerifyTestMainWritesToFD2 runs a real `go test -json` of a package
// whose tests pass but leave a goroutine, with file descriptor 2
// redirected into a file around VerifyTestMain (what a harness that
// captures a test binary's standard error does). The report must be in
// that file, as goleak's is: under -json the testing package points
// os.Stderr at os.Stdout, and a report written to os.Stderr as it was then
// went into the JSON stream instead.
func TestVerifyTestMainWritesToFD2(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("redirects file descriptor 2 with dup3: Linux only")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	fd2 := filepath.Join(t.TempDir(), "fd2.txt")
	cmd := exec.Command(goBin, "test", "-json", "-count=1", "-run", "^TestLeakAtMain$", "./testdata/leaky")
	cmd.Env = append(os.Environ(), "LEAKCHECK_CHILD=main", "LEAKCHECK_FD2="+fd2, "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("go test -json of a package leaking at TestMain: %v, want a failure\n%s", err, out)
	}
	got, err := os.ReadFile(fd2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"goleak: Errors on successful test run: found unexpected goroutines:\n", "leaky.sendForever"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("file descriptor 2 lacks %q:\n%s\n(go test -json wrote:\n%s)", want, got, out)
		}
	}
	if strings.Contains(string(out), "goleak: Errors") {
		t.Errorf("the report went into the JSON stream (standard output):\n%s", out)
	}
}
