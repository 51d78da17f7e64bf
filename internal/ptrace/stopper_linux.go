//go:build linux && (amd64 || arm64)

package ptrace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Requests and events of ptrace(2) the syscall package does not name on
// every architecture.
const (
	ptraceSeize     = 0x4206
	ptraceInterrupt = 0x4207
	ptraceEventStop = 128
)

// Stopper stops every thread of one process and resumes it; see the
// package documentation. Its methods may be called from any goroutine.
type Stopper struct {
	pid  int
	opts Options
	ctx  context.Context

	mu   sync.Mutex
	cur  *stop // the stop in effect; nil while the target runs
	last StopStats
}

// stop is one stop of the target, held by a goroutine locked to the OS
// thread the attachment belongs to.
type stop struct {
	resume chan struct{} // Resume's request
	done   chan struct{} // closed once the target was released
	// Final once done is closed:
	stats StopStats
	err   error // why the target was released before Resume
}

// New returns a Stopper for process pid. Nothing is attached until Stop.
// When ctx ends while the target is stopped, the target is resumed at once
// (Resume then reports ErrStopExpired), and Stop fails from then on.
func New(ctx context.Context, pid int, opts Options) (*Stopper, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("ptrace: invalid process id %d", pid)
	}
	return &Stopper{pid: pid, opts: opts.withDefaults(), ctx: ctx}, nil
}

// Stop stops every thread of the target and returns them with their
// registers, the process's main thread first. The target stays stopped
// until Resume, Close, the end of the Stopper's context or Options.MaxStop,
// whichever comes first. When Stop fails, the target runs.
func (s *Stopper) Stop() ([]Thread, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return nil, errors.New("ptrace: Stop while stopped")
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	st := &stop{resume: make(chan struct{}), done: make(chan struct{})}
	type result struct {
		threads []Thread
		err     error
	}
	ready := make(chan result, 1)
	onOwnThread(func() (clean bool) {
		a := &attachment{pid: s.pid, opts: s.opts, seized: map[int]*tracee{}}
		defer func() {
			st.stats = a.stats
			close(st.done)
		}()
		threads, err := a.stopAll()
		if err != nil {
			clean = a.releaseAll()
			ready <- result{err: err}
			return clean
		}
		ready <- result{threads: threads}
		timer := time.NewTimer(s.opts.MaxStop - time.Since(a.stats.Stopped))
		defer timer.Stop()
		select {
		case <-st.resume:
		case <-timer.C:
			st.err = fmt.Errorf("%w: it was stopped for %v, the most allowed (MaxStop)", ErrStopExpired, s.opts.MaxStop)
		case <-s.ctx.Done():
			st.err = fmt.Errorf("%w: %w", ErrStopExpired, context.Cause(s.ctx))
		}
		clean = a.releaseAll()
		a.stats.Expired = st.err != nil
		return clean
	})
	r := <-ready
	if r.err != nil {
		<-st.done
		s.last = st.stats
		return nil, r.err
	}
	s.cur = st
	return r.threads, nil
}

// Resume lets the target run again, handing every thread the signal it
// received during the stop, if any. It returns ErrStopExpired (wrapped
// with the reason) when the target had been resumed already by
// Options.MaxStop or the Stopper's context.
func (s *Stopper) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.cur
	if st == nil {
		return errors.New("ptrace: Resume without Stop")
	}
	s.cur = nil
	// Once the context has ended, the stop's own goroutine releases the
	// target, as expired: asked to resume too, it could take either
	// request, and Resume would report nil after the context's end.
	if s.ctx.Err() == nil {
		select {
		case st.resume <- struct{}{}:
		case <-st.done:
		}
	}
	<-st.done
	s.last = st.stats
	return st.err
}

// Stats returns what the last stop cost the target: final after Resume.
func (s *Stopper) Stats() StopStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Close resumes the target if it is stopped.
func (s *Stopper) Close() error {
	s.mu.Lock()
	stopped := s.cur != nil
	s.mu.Unlock()
	if !stopped {
		return nil
	}
	if err := s.Resume(); err != nil && !errors.Is(err, ErrStopExpired) {
		return err
	}
	return nil
}

// onOwnThread runs f on a goroutine locked to an OS thread other than the
// process's main thread, the thread the attachment belongs to. When f
// reports the threads it seized not all released, the goroutine ends
// locked, which ends its OS thread: the kernel then releases them (a
// thread seized but not stopped cannot be detached, only abandoned). The
// main thread cannot end that way, so f never runs on it: while it is
// held, the goroutine that runs f must take another.
func onOwnThread(f func() (clean bool)) {
	run := func() {
		if f() {
			runtime.UnlockOSThread()
		}
	}
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != syscall.Getpid() {
			run()
			return
		}
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			run()
		}()
		<-locked
		runtime.UnlockOSThread()
	}()
}

// attachment is the state of one stop, used only on the locked thread.
type attachment struct {
	pid    int
	opts   Options
	seized map[int]*tracee
	stats  StopStats
}

// tracee is one seized thread.
type tracee struct {
	tid     int
	stopped bool
	// sig is a signal whose delivery the stop caught: handed back when the
	// thread is released, or it would be lost.
	sig syscall.Signal
}

// stopAll stops every thread of the process: seize and interrupt each
// thread listed, wait until each is stopped, list again, until a listing
// holds no thread not seized.
func (a *attachment) stopAll() ([]Thread, error) {
	deadline := time.Now().Add(a.opts.StopTimeout)
	taskDir := filepath.Join(a.opts.ProcRoot, strconv.Itoa(a.pid), "task")
	for {
		tids, err := listTasks(taskDir)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("process %d: %w", a.pid, ErrExited)
			}
			return nil, err
		}
		a.stats.Rounds++
		var fresh []int
		for _, tid := range tids {
			if a.seized[tid] != nil {
				continue
			}
			if err := ptrace(ptraceSeize, tid, 0, 0); err != nil {
				if err == syscall.ESRCH || err == syscall.EPERM && a.exiting(tid) {
					continue // the thread exited since the listing, or is exiting
				}
				return nil, a.seizeError(tid, err)
			}
			a.seized[tid] = &tracee{tid: tid}
			fresh = append(fresh, tid)
		}
		if len(fresh) == 0 {
			if len(a.seized) == 0 {
				return nil, fmt.Errorf("process %d: %w", a.pid, ErrExited)
			}
			break
		}
		if a.stats.Stopped.IsZero() {
			a.stats.Stopped = time.Now()
		}
		for _, tid := range fresh {
			if err := ptrace(ptraceInterrupt, tid, 0, 0); err != nil && err != syscall.ESRCH {
				return nil, fmt.Errorf("stopping thread %d of process %d: %w", tid, a.pid, err)
			}
		}
		if err := a.wait(fresh, deadline); err != nil {
			return nil, err
		}
	}
	threads := make([]Thread, 0, len(a.seized))
	for tid := range a.seized {
		th, err := readThread(tid)
		if err == syscall.ESRCH {
			delete(a.seized, tid) // killed during the stop
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the registers of thread %d of process %d: %w", tid, a.pid, err)
		}
		threads = append(threads, th)
	}
	slices.SortFunc(threads, func(x, y Thread) int {
		switch {
		case x.TID == a.pid:
			return -1
		case y.TID == a.pid:
			return 1
		}
		return x.TID - y.TID
	})
	a.stats.Threads = len(threads)
	return threads, nil
}

// wait waits until each of tids is stopped (or gone), polling without
// blocking: a blocking wait for a thread that never stops would hold the
// others stopped.
func (a *attachment) wait(tids []int, deadline time.Time) error {
	pending := slices.Clone(tids)
	start := time.Now()
	for len(pending) > 0 {
		kept := pending[:0]
		for _, tid := range pending {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
			switch {
			case err == syscall.EINTR || err == nil && wpid == 0:
				kept = append(kept, tid)
			case err == syscall.ECHILD:
				delete(a.seized, tid) // gone and reaped
			case err != nil:
				return fmt.Errorf("waiting for thread %d of process %d to stop: %w", tid, a.pid, err)
			case ws.Stopped():
				t := a.seized[tid]
				t.stopped = true
				if uint32(ws)>>16 != ptraceEventStop {
					// A signal-delivery stop: the interrupt met a signal
					// on its way to the thread, to be handed back.
					t.sig = ws.StopSignal()
				}
			default: // exited or killed
				delete(a.seized, tid)
			}
		}
		pending = kept
		if len(pending) == 0 {
			break
		}
		now := time.Now()
		if now.After(deadline) {
			return a.stuckError(pending)
		}
		if now.Sub(start) < 100*time.Microsecond {
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		} else {
			ts := syscall.Timespec{Nsec: 20_000}
			syscall.Nanosleep(&ts, nil)
		}
	}
	return nil
}

// releaseAll detaches every seized thread, handing each the signal its
// stop caught. It reports whether every thread was detached: a thread
// seized but not stopped cannot be (PTRACE_DETACH needs a stopped
// tracee), and only the end of the tracing thread releases it.
func (a *attachment) releaseAll() (clean bool) {
	clean = true
	var dead []int
	for tid, t := range a.seized {
		if !t.stopped {
			clean = false
			continue
		}
		if err := ptrace(syscall.PTRACE_DETACH, tid, 0, uintptr(t.sig)); err != nil {
			// ESRCH: the thread died during the stop (SIGKILL, or
			// another thread's exit). Its tracer must collect it before
			// its parent can: a dead process would otherwise stay a
			// zombie its parent waits for in vain.
			dead = append(dead, tid)
			clean = false
		}
	}
	if slices.Contains(dead, a.pid) && parentOf(a.opts.ProcRoot, a.pid) == os.Getpid() {
		// Our own child: collected as its tracer it would be collected
		// as our child too, its exit status lost to whoever waits for
		// it here. Released, it is ours to wait for as usual.
		dead = slices.DeleteFunc(dead, func(tid int) bool { return tid == a.pid })
	}
	reap(dead)
	clear(a.seized)
	a.stats.Resumed = time.Now()
	return clean
}

// reap collects the dead tracees tids as their tracer, waiting up to
// 100ms for them to finish dying; once collected, a dead process is its
// parent's to collect. Any left are released when the tracing thread ends.
func reap(tids []int) {
	deadline := time.Now().Add(100 * time.Millisecond)
	for len(tids) > 0 && time.Now().Before(deadline) {
		kept := tids[:0]
		for _, tid := range tids {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
			if err == nil && wpid == 0 || err == syscall.EINTR {
				kept = append(kept, tid)
			}
		}
		tids = kept
		if len(tids) > 0 {
			ts := syscall.Timespec{Nsec: 200_000}
			syscall.Nanosleep(&ts, nil)
		}
	}
}

// exiting reports whether thread tid is ending (a zombie, dead, gone),
// which the kernel refuses to seize with EPERM.
func (a *attachment) exiting(tid int) bool {
	st := threadState(a.opts.ProcRoot, a.pid, tid)
	return st == "gone" || strings.HasPrefix(st, "Z") || strings.HasPrefix(st, "X")
}

// seizeError says why thread tid could not be seized.
func (a *attachment) seizeError(tid int, err error) error {
	if err == syscall.EPERM {
		if pid := tracerOf(a.opts.ProcRoot, a.pid); pid > 0 {
			return fmt.Errorf("thread %d of process %d is traced already, by thread %d: %w", tid, a.pid, pid, err)
		}
		return fmt.Errorf("the kernel does not let this process trace process %d (ptrace: %w): see the checks made before (ptrace_scope, user, capabilities)", a.pid, err)
	}
	return fmt.Errorf("seizing thread %d of process %d: %w", tid, a.pid, err)
}

// stuckError names the threads that did not stop in time, with their
// states.
func (a *attachment) stuckError(tids []int) error {
	var b strings.Builder
	for i, tid := range tids {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(tids)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d (%s)", tid, threadState(a.opts.ProcRoot, a.pid, tid))
	}
	return fmt.Errorf("process %d: %d of its threads did not stop within %v: %s; it was resumed. A thread in uninterruptible sleep (D) stops only when it leaves it, a stopped process (T) only when continued", a.pid, len(tids), a.opts.StopTimeout, b.String())
}

// listTasks lists the thread ids in a /proc/PID/task directory.
func listTasks(dir string) ([]int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// threadState is the state letter and name of a thread, as
// /proc/PID/task/TID/status says it ("D (disk sleep)"), or "gone".
func threadState(procRoot string, pid, tid int) string {
	st, err := readStatus(filepath.Join(procRoot, strconv.Itoa(pid), "task", strconv.Itoa(tid), "status"))
	if err != nil || st["State"] == "" {
		return "gone"
	}
	return st["State"]
}

// parentOf is the PPid of process pid, 0 when unknown.
func parentOf(procRoot string, pid int) int {
	st, err := readStatus(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(st["PPid"])
	return n
}

// tracerOf is the TracerPid of process pid, 0 when none or unknown.
func tracerOf(procRoot string, pid int) int {
	st, err := readStatus(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(st["TracerPid"])
	return n
}

func ptrace(req, tid int, addr, data uintptr) error {
	_, _, e := syscall.Syscall6(syscall.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
