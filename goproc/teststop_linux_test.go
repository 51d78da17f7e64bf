//go:build linux && amd64

package goproc

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// testStopper is the tests' Stopper: every thread of a child seized and
// interrupted with ptrace from one locked thread, released with
// PTRACE_DETACH. (stackdump's own, with its safety nets, is
// internal/ptrace.)
type testStopper struct {
	pid    int
	resume chan struct{}
	done   chan error
	stops  int
}

const (
	ptraceSeize     = 0x4206
	ptraceInterrupt = 0x4207
)

func newTestStopper(_ testing.TB, pid int) *testStopper {
	return &testStopper{pid: pid}
}

func ptraceCall(req, tid int) error {
	_, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, uintptr(req), uintptr(tid), 0, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func (s *testStopper) Stop() ([]Thread, error) {
	type result struct {
		threads []Thread
		err     error
	}
	ready := make(chan result, 1)
	s.resume, s.done = make(chan struct{}), make(chan error, 1)
	go func() {
		// Locked for good: the thread ends with the goroutine, which
		// releases any thread still traced.
		runtime.LockOSThread()
		seized := map[int]bool{}
		var threads []Thread
		for {
			entries, err := os.ReadDir("/proc/" + strconv.Itoa(s.pid) + "/task")
			if err != nil {
				ready <- result{err: err}
				s.done <- err
				return
			}
			fresh := 0
			for _, e := range entries {
				tid, _ := strconv.Atoi(e.Name())
				if seized[tid] {
					continue
				}
				if err := ptraceCall(ptraceSeize, tid); err != nil {
					continue
				}
				seized[tid] = true
				fresh++
				ptraceCall(ptraceInterrupt, tid)
				if !waitStopped(tid) {
					continue
				}
				var regs syscall.PtraceRegs
				if err := syscall.PtraceGetRegs(tid, &regs); err == nil {
					threads = append(threads, Thread{TID: tid, PC: regs.Rip, SP: regs.Rsp, FP: regs.Rbp, TLS: regs.Fs_base})
				}
			}
			if fresh == 0 {
				break
			}
		}
		s.stops++
		ready <- result{threads: threads}
		select {
		case <-s.resume:
		case <-time.After(10 * time.Second):
		}
		for tid := range seized {
			syscall.PtraceDetach(tid)
		}
		s.done <- nil
	}()
	r := <-ready
	return r.threads, r.err
}

func (s *testStopper) Resume() error {
	close(s.resume)
	return <-s.done
}

// waitStopped waits, polling, up to a second for a seized thread to stop.
func waitStopped(tid int) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR || err == nil && wpid == 0:
			time.Sleep(20 * time.Microsecond)
		case err != nil:
			return false
		default:
			return ws.Stopped()
		}
	}
	return false
}
