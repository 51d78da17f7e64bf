//go:build linux && (amd64 || arm64)

package goproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/stackdump/stackdump/internal/ptrace"
	"github.com/stackdump/stackdump/stack"
)

// ErrRefused is wrapped by the errors of OpenProcess and ReadProcess that
// refuse a process before anything is attached: not a Go program, a
// thread id, this process, an exited one, one traced already, another
// user's without CAP_SYS_PTRACE, one that ptrace_scope forbids. The
// message says what to do.
var ErrRefused = ptrace.ErrRefused

// OpenProcess checks that process pid may be read and opens its
// executable (through /proc/PID/exe, which reaches into a container's
// filesystem). Nothing is attached. A process refused (ErrRefused) or
// built by a Go release outside the layouts known is an error that says
// why and what to do.
func OpenProcess(procRoot string, pid int) (*Binary, error) {
	if procRoot == "" {
		procRoot = "/proc"
	}
	p, err := ptrace.Check(procRoot, pid)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(pid), "exe"))
	if err != nil {
		return nil, fmt.Errorf("process %d (%s): opening its executable: %w", pid, p.Name, err)
	}
	defer f.Close()
	bin, err := OpenBinary(f)
	if errors.Is(err, ErrNotGo) {
		return nil, refused{fmt.Sprintf("process %d (%s) is not a Go program (its executable has no Go build information): pid: reads Go programs only; for a JVM give jvm:%d, for another program use gdb or eu-stack", pid, p.Name, pid)}
	}
	if err != nil {
		return nil, fmt.Errorf("process %d (%s): %w", pid, p.Name, err)
	}
	return bin, nil
}

// refused is an OpenProcess refusal of its own.
type refused struct{ msg string }

func (r refused) Error() string        { return r.msg }
func (r refused) Is(target error) bool { return target == ErrRefused }

// ReadProcess reads every goroutine of the Go process pid on this machine
// (OpenProcess's checks first), within opts.MaxPause: the consistent
// snapshot when its predicted stall fits, else a read that never stops the
// target. The dump says which (Source.Capture.Mode: ModeStopped or
// ModeLive), with the predicted and the measured stall.
func ReadProcess(ctx context.Context, pid int, opts ProcessOptions) (*ProcessRead, error) {
	bin, err := OpenProcess(opts.ProcRoot, pid)
	if err != nil {
		return nil, err
	}
	bias, err := LoadBias(pid, bin)
	if err != nil {
		return nil, err
	}
	mem := NewProcessMemory(pid)
	n, err := Count(bin, mem, bias)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	pr := &ProcessRead{Binary: bin, Counted: n, Predicted: PredictStall(n, opts.StallPerGoroutine)}
	ro := Options{LoadBias: bias, System: opts.System, Target: "pid:" + strconv.Itoa(pid)}
	pr.OverBudget = opts.MaxPause > 0 && pr.Predicted > opts.MaxPause
	if !opts.NoStop && !pr.OverBudget {
		// The stop is cut off at the budget (or, unbounded, well past the
		// prediction), and threads that do not stop within half of it
		// leave the target running.
		maxStop := opts.MaxPause
		if maxStop <= 0 {
			maxStop = max(ptrace.DefaultMaxStop, 4*pr.Predicted)
		}
		s, err := ptrace.New(ctx, pid, ptrace.Options{MaxStop: maxStop, StopTimeout: min(maxStop/2, ptrace.DefaultStopTimeout), ProcRoot: opts.ProcRoot})
		if err != nil {
			return nil, err
		}
		if opts.BeforeStop != nil {
			opts.BeforeStop(pr.Predicted, n)
		}
		ro.Stopper = ptraceStopper{s}
		d, st, err := Read(ctx, bin, mem, ro)
		s.Close()
		switch {
		case err == nil:
			pr.Dump, pr.Stats = d, st
			pr.annotate()
			return pr, nil
		case errors.Is(err, ptrace.ErrStopExpired) && ctx.Err() == nil:
			pr.CutOff = true
		case errors.Is(err, errStop) && ctx.Err() == nil:
			pr.StopFailed = err
		default:
			return nil, err
		}
	}
	ro.Stopper = nil
	d, st, err := Read(ctx, bin, mem, ro)
	if err != nil {
		return nil, err
	}
	pr.Dump, pr.Stats = d, st
	pr.annotate()
	return pr, nil
}

// annotate records in the dump how it was read.
func (pr *ProcessRead) annotate() {
	c := pr.Dump.Source.Capture
	if c == nil {
		c = &stack.Capture{}
		pr.Dump.Source.Capture = c
	}
	c.PausePredicted = pr.Predicted
	if pr.Stats.Stopped {
		c.Methods = []string{"ptrace", "process_vm_readv"}
	} else {
		c.Methods = []string{"process_vm_readv"}
	}
	switch {
	case pr.CutOff:
		pr.Dump.Warnings = append(pr.Dump.Warnings, &stack.ParseError{Msg: fmt.Sprintf("the consistent snapshot ran past the pause budget and was cut off (the target was stopped at most that long); read without stopping the target instead: each goroutine is consistent in itself, not all at one instant")})
	case pr.StopFailed != nil:
		pr.Dump.Warnings = append(pr.Dump.Warnings, &stack.ParseError{Msg: fmt.Sprintf("the target could not be stopped (%v); read without stopping it instead: each goroutine is consistent in itself, not all at one instant", pr.StopFailed)})
	}
}

// errStop marks a failure to stop the target (not a failure to read it).
var errStop = errors.New("stopping the target")

// ptraceStopper is a ptrace.Stopper as Read's Stopper.
type ptraceStopper struct{ s *ptrace.Stopper }

func (p ptraceStopper) Stop() ([]Thread, error) {
	ts, err := p.s.Stop()
	if err != nil {
		if errors.Is(err, ptrace.ErrRefused) || errors.Is(err, ptrace.ErrExited) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", errStop, err)
	}
	threads := make([]Thread, len(ts))
	for i, t := range ts {
		threads[i] = Thread{TID: t.TID, PC: t.PC, SP: t.SP, FP: t.FP, LR: t.LR, TLS: t.TLS}
	}
	return threads, nil
}

func (p ptraceStopper) Resume() error { return p.s.Resume() }
