package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestJVMCaptureRefusesDeadJVM kills a real JVM with SIGKILL, which leaves
// its HotSpot perf-data file behind. While the JVM is a zombie the capture
// is refused as such; then its perf-data file is given the pid of a Go
// process, as when the pid is reused, and the capture is refused again
// before any signal: the Go process, which SIGQUIT would kill, lives on.
func TestJVMCaptureRefusesDeadJVM(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the zombie and memory-map checks are Linux only")
	}
	jvm := startJVM(t)
	stale, _ := filepath.Glob(filepath.Join("/tmp", "hsperfdata_*", strconv.Itoa(jvm)))
	if len(stale) != 1 {
		t.Skipf("the JVM made no perf-data file in /tmp (found %v)", stale)
	}
	if err := syscall.Kill(jvm, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale[0]) }) // HotSpot leaves it behind
	// startJVM reaps the JVM only when the test ends: until then it is a
	// zombie, once the kernel has finished it.
	deadline := time.Now().Add(30 * time.Second)
	for !isZombie(t, jvm) {
		if time.Now().After(deadline) {
			t.Fatal("the killed JVM did not become a zombie within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(jvm), "")
	_, err := Open(context.Background(), tg, Options{Timeout: 20 * time.Second})
	if !errors.Is(err, ErrNotJVM) || !strings.Contains(err.Error(), "zombie") {
		t.Fatalf("capturing a zombie JVM: err = %v, want %v naming a zombie", err, ErrNotJVM)
	}
	t.Logf("zombie (as shown to users): %v", err)

	pid, exited := startBlockedChild(t)
	reused := filepath.Join(filepath.Dir(stale[0]), strconv.Itoa(pid))
	if err := os.Rename(stale[0], reused); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(reused) })
	tg, _ = ParseTarget("jvm:"+strconv.Itoa(pid), "")
	_, err = Open(context.Background(), tg, Options{Timeout: 20 * time.Second})
	if !errors.Is(err, ErrNotJVM) || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("capturing a Go process with a stale perf-data file: err = %v, want %v naming the stale file", err, ErrNotJVM)
	}
	t.Logf("stale perf-data file (as shown to users): %v", err)
	select {
	case err := <-exited:
		t.Fatalf("the Go process died after the refused capture: %v", err)
	case <-time.After(500 * time.Millisecond): // a SIGQUIT kills at once
	}
}

// isZombie reports whether /proc says pid is a zombie.
func isZombie(t *testing.T, pid int) bool {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatalf("reading the status of %d: %v", pid, err)
	}
	return statusZombie(status)
}
