//go:build linux && (amd64 || arm64)

package ptrace_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/internal/ptrace"
)

// helperEnv makes the test binary a stackdump-like tracer (helperMain):
// the tests kill it, or signal it, while it holds a target stopped.
const helperEnv = "STACKDUMP_PTRACE_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		helperMain(v)
		return
	}
	dir, err := os.MkdirTemp("", "ptrace-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tickDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stopTimeout is the tests' Options.StopTimeout: a runnable thread
// waiting for a CPU stops only once it runs, which on a loaded machine can
// outlast the default (100ms). No test here is about that bound.
const stopTimeout = time.Minute

// tickDir holds the ticktarget the tests run, built once (startTick).
var (
	tickDir  string
	tickOnce sync.Once
	tickBin  string
)

// startTick runs testdata/gen/ticktarget with args until the test ends.
func startTick(t *testing.T, args ...string) *livechild.Tick {
	t.Helper()
	tickOnce.Do(func() { tickBin = livechild.BuildTick(context.Background(), t, tickDir) })
	if tickBin == "" {
		t.Fatal("ticktarget was not built")
	}
	return livechild.RunTick(context.Background(), t, tickBin, args...)
}

// helperMain runs one of the helper's modes on a target pid:
//
//	hold PID    stop it, print "stopped N" (N threads), wait to be killed
//	expire PID  the same, with a MaxStop of 100ms
//	loop PID    stop and resume it without pause, printing "looping" once
//	signal PID  stop it under a context that SIGINT or SIGTERM ends, print
//	            "stopped N", then "resumed ERR" once the signal resumed it
func helperMain(v string) {
	mode, arg, _ := strings.Cut(v, " ")
	pid, err := strconv.Atoi(arg)
	if err != nil {
		fmt.Println("bad helper argument", v)
		os.Exit(2)
	}
	ctx := context.Background()
	if mode == "check" {
		_, err := ptrace.Check("", pid)
		if errors.Is(err, ptrace.ErrRefused) {
			fmt.Println("refused:", err)
		} else {
			fmt.Println("allowed:", err)
		}
		return
	}
	if mode == "signal" {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	maxStop := 10 * time.Minute
	if mode == "expire" {
		maxStop = 100 * time.Millisecond
	}
	s, err := ptrace.New(ctx, pid, ptrace.Options{MaxStop: maxStop, StopTimeout: stopTimeout})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	switch mode {
	case "hold", "signal", "expire":
		threads, err := s.Stop()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("stopped", len(threads))
		if mode == "hold" || mode == "expire" {
			time.Sleep(time.Hour) // until killed
		}
		<-ctx.Done()
		// The Stopper resumed the target when ctx ended; Resume says so.
		fmt.Println("resumed", s.Resume())
	case "loop":
		fmt.Println("looping")
		for {
			if _, err := s.Stop(); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			s.Resume()
		}
	}
}

// startHelper runs the test binary as a tracer of pid in mode and returns
// it with its first line.
func startHelper(t *testing.T, mode string, pid int) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode+" "+strconv.Itoa(pid))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("helper %s: %q, %v", mode, line, err)
	}
	return cmd, strings.TrimSpace(line), r
}

// threadStates reads State and TracerPid of every thread of pid.
func threadStates(t *testing.T, pid int) map[int][2]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[int][2]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "status"))
		if err != nil {
			continue // exited since
		}
		var state, tracer string
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "State:"); ok {
				state = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(l, "TracerPid:"); ok {
				tracer = strings.TrimSpace(v)
			}
		}
		tid, _ := strconv.Atoi(e.Name())
		m[tid] = [2]string{state, tracer}
	}
	return m
}

// requireHeld fails unless every thread of the target is in a tracing
// stop, traced by a thread of process tracer (TracerPid is the tracing
// thread's id).
func requireHeld(t *testing.T, pid, tracer int) {
	t.Helper()
	for tid, st := range threadStates(t, pid) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%s", tracer, st[1])); !strings.HasPrefix(st[0], "t") || err != nil {
			t.Fatalf("thread %d of the stopped target: State %q, TracerPid %s (want a tracing stop by a thread of %d)", tid, st[0], st[1], tracer)
		}
	}
}

func TestStopResume(t *testing.T) {
	ctx := context.Background()
	tk := startTick(t, "-goroutines", "100")
	s, err := ptrace.New(ctx, tk.PID, ptrace.Options{StopTimeout: stopTimeout, MaxStop: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := tk.Number(t, "ticks")
	tk.Number(t, "gap")
	threads, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	requireHeld(t, tk.PID, os.Getpid())
	tasks := threadStates(t, tk.PID)
	if len(threads) != len(tasks) || threads[0].TID != tk.PID {
		t.Errorf("Stop returned %d threads, main thread first (%v); /proc lists %d", len(threads), threads, len(tasks))
	}
	text := executableRanges(t, tk.PID)
	for _, th := range threads {
		if _, ok := tasks[th.TID]; !ok {
			t.Errorf("thread %d is not the target's", th.TID)
		}
		if !text.contains(th.PC) {
			t.Errorf("thread %d: PC %#x is in no executable mapping", th.TID, th.PC)
		}
		if th.SP == 0 || th.TLS == 0 {
			t.Errorf("thread %d: SP %#x, TLS %#x", th.TID, th.SP, th.TLS)
		}
	}
	const held = 50 * time.Millisecond
	time.Sleep(held)
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Threads != len(threads) || st.Duration() < held || st.Rounds < 2 || st.Expired {
		t.Errorf("stats %+v after a stop of %v", st, held)
	}
	tk.RequireRunning(t)
	if after := tk.Number(t, "ticks"); after <= before {
		t.Errorf("ticks %d, then %d", before, after)
	}
	// The target's own ticker saw the stop.
	if gap := time.Duration(tk.Number(t, "gap")); gap < held {
		t.Errorf("the target's longest stall is %v, under the %v it was held", gap, held)
	}
	// A second stop on the same Stopper.
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	tk.RequireRunning(t)
}

// ranges are address ranges of a process's mappings.
type ranges [][2]uint64

func (r ranges) contains(a uint64) bool {
	for _, x := range r {
		if a >= x[0] && a < x[1] {
			return true
		}
	}
	return false
}

// executableRanges reads pid's executable mappings.
func executableRanges(t *testing.T, pid int) ranges {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	var r ranges
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.Contains(f[1], "x") {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		a, _ := strconv.ParseUint(lo, 16, 64)
		z, _ := strconv.ParseUint(hi, 16, 64)
		r = append(r, [2]uint64{a, z})
	}
	return r
}

// TestThreadsBornDuringStop stops a target that starts and ends threads
// without pause: every thread it has while stopped is in a tracing stop,
// those born while the first ones were stopped included.
func TestThreadsBornDuringStop(t *testing.T) {
	ctx := context.Background()
	tk := startTick(t, "-goroutines", "10", "-churn")
	// The stop must last until the test has read every thread's state:
	// past MaxStop (1s by default, which a loaded machine can spend
	// between Stop and those reads) the Stopper resumes the target by
	// itself, and a thread would be found running that the stop had held.
	s, _ := ptrace.New(ctx, tk.PID, ptrace.Options{StopTimeout: stopTimeout, MaxStop: time.Minute})
	t.Cleanup(func() { s.Close() }) // a failed test leaves no target held
	rounds := 0
	for range 50 {
		threads, err := s.Stop()
		if err != nil {
			t.Fatal(err)
		}
		returned := map[int]bool{}
		for _, th := range threads {
			returned[th.TID] = true
		}
		// Every thread is stopped and returned, but those that are
		// ending (a churned thread exits once released; procfs lists it
		// a moment longer as a zombie or dead).
		for tid, st := range threadStates(t, tk.PID) {
			if strings.HasPrefix(st[0], "Z") || strings.HasPrefix(st[0], "X") {
				continue
			}
			if !strings.HasPrefix(st[0], "t") || !returned[tid] {
				t.Fatalf("thread %d is not stopped (State %q) or was not returned (%v) while the target is stopped; Stop returned %d threads", tid, st[0], returned[tid], len(threads))
			}
		}
		if err := s.Resume(); err != nil {
			t.Fatal(err)
		}
		rounds = max(rounds, s.Stats().Rounds)
	}
	t.Logf("up to %d listings of /proc/%d/task a stop", rounds, tk.PID)
	tk.RequireRunning(t)
}

// TestSignalsDuringStops sends the target SIGUSR1 right before each stop:
// a signal the stop caught on its way is handed back on release, so the
// target counts every one.
func TestSignalsDuringStops(t *testing.T) {
	ctx := context.Background()
	tk := startTick(t, "-goroutines", "10")
	s, _ := ptrace.New(ctx, tk.PID, ptrace.Options{StopTimeout: stopTimeout, MaxStop: time.Minute})
	t.Cleanup(func() { s.Close() })
	const n = 100
	for i := 1; i <= n; i++ {
		if err := syscall.Kill(tk.PID, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := s.Resume(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Second)
		for tk.Number(t, "usr1") < int64(i) {
			if time.Now().After(deadline) {
				t.Fatalf("the target received %d of %d SIGUSR1 sent, one before each stop", tk.Number(t, "usr1"), i)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestKilledTracerReleasesTarget kills (SIGKILL) a tracer process while
// it holds the target stopped: the kernel releases the target, which runs
// on untraced.
func TestKilledTracerReleasesTarget(t *testing.T) {
	tk := startTick(t, "-goroutines", "1000")
	helper, line, _ := startHelper(t, "hold", tk.PID)
	if !strings.HasPrefix(line, "stopped ") {
		t.Fatalf("helper: %q", line)
	}
	requireHeld(t, tk.PID, helper.Process.Pid)
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	tk.RequireRunning(t)
}

// TestKilledTracerAtAnyMoment kills a tracer that stops and resumes the
// target without pause, at random moments: whatever it was doing (seizing,
// interrupting, waiting, reading registers, detaching), the target runs on.
func TestKilledTracerAtAnyMoment(t *testing.T) {
	tk := startTick(t, "-goroutines", "1000", "-churn")
	for i := range 10 {
		helper, line, _ := startHelper(t, "loop", tk.PID)
		if line != "looping" {
			t.Fatalf("helper: %q", line)
		}
		time.Sleep(time.Duration(rand.IntN(30_000)) * time.Microsecond)
		helper.Process.Signal(syscall.SIGKILL)
		helper.Wait()
		tk.RequireRunning(t)
		_ = i
	}
}

// TestSignalledTracerResumesFirst sends SIGTERM, then SIGINT, to a tracer
// whose context those signals end while it holds the target stopped: it
// resumes the target before it exits.
func TestSignalledTracerResumesFirst(t *testing.T) {
	tk := startTick(t, "-goroutines", "100")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		helper, line, out := startHelper(t, "signal", tk.PID)
		if !strings.HasPrefix(line, "stopped ") {
			t.Fatalf("helper: %q", line)
		}
		requireHeld(t, tk.PID, helper.Process.Pid)
		helper.Process.Signal(sig)
		line, _ = out.ReadString('\n')
		if !strings.HasPrefix(line, "resumed ") || !strings.Contains(line, ptrace.ErrStopExpired.Error()) {
			t.Fatalf("after %v the helper said %q", sig, line)
		}
		// Resumed while the helper still lives: not the kernel's doing.
		if helper.ProcessState != nil {
			t.Fatal("the helper exited before it said it resumed")
		}
		tk.RequireRunning(t)
		helper.Wait()
	}
}

// TestMaxStopAndContext: a stop outliving Options.MaxStop, or its
// context, ends by itself, and Resume says so.
func TestMaxStopAndContext(t *testing.T) {
	ctx := context.Background()
	tk := startTick(t, "-goroutines", "10")
	s, _ := ptrace.New(ctx, tk.PID, ptrace.Options{MaxStop: 20 * time.Millisecond, StopTimeout: stopTimeout})
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	tk.RequireRunning(t)
	if err := s.Resume(); !errors.Is(err, ptrace.ErrStopExpired) || !s.Stats().Expired {
		t.Fatalf("Resume after MaxStop: %v (stats %+v)", err, s.Stats())
	}

	cctx, cancel := context.WithCancel(ctx)
	s, _ = ptrace.New(cctx, tk.PID, ptrace.Options{StopTimeout: stopTimeout})
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	cancel()
	tk.RequireRunning(t)
	if err := s.Resume(); !errors.Is(err, ptrace.ErrStopExpired) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Resume after the context ended: %v", err)
	}
	if _, err := s.Stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop after the context ended: %v", err)
	}
}

// TestTargetKilledDuringStop kills the target while it is stopped: once
// released, its parent collects it. A dead tracee is its tracer's to
// collect first; one never collected stays a zombie its parent waits for
// in vain. Here the parent is this test, the tracer this test (released
// by Resume, or by MaxStop) or another process (the helper).
func TestTargetKilledDuringStop(t *testing.T) {
	ctx := context.Background()
	bin := livechild.BuildTick(ctx, t, t.TempDir())
	for i, how := range []string{"resume", "expire", "expire", "expire", "helper", "helper"} {
		tk := livechild.RunTick(ctx, t, bin, "-goroutines", "100", "-churn")
		var s *ptrace.Stopper
		if how == "helper" {
			if _, line, _ := startHelper(t, "expire", tk.PID); !strings.HasPrefix(line, "stopped ") {
				t.Fatalf("helper: %q", line)
			}
		} else {
			s, _ = ptrace.New(ctx, tk.PID, ptrace.Options{MaxStop: 100 * time.Millisecond, StopTimeout: stopTimeout})
			if _, err := s.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		tk.Cmd.Process.Signal(syscall.SIGKILL)
		time.Sleep(20 * time.Millisecond)
		if how == "resume" {
			s.Resume()
		}
		waited := make(chan error, 1)
		go func() { waited <- tk.Cmd.Wait() }()
		select {
		case err := <-waited:
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("round %d (%s): the target's end: %v", i, how, err)
			}
		case <-time.After(10 * time.Second):
			p, _ := ptrace.ReadProcess("", tk.PID)
			t.Fatalf("round %d (%s): the killed target's parent could not collect it after the stop: %+v", i, how, p)
		}
		if s != nil {
			s.Resume()
		}
	}
}
