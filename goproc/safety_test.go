package goproc

import (
	"context"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/internal/livechild"
)

// faultMemory reads a live process and panics, or fails, at its nth read
// once armed: a reader's bug or a memory source's failure while the
// target is stopped.
type faultMemory struct {
	*ProcessMemory
	armed bool
	n     int
	panic bool
}

func (m *faultMemory) ReadAt(p []byte, addr uint64) (int, error) {
	if !m.armed {
		return m.ProcessMemory.ReadAt(p, addr)
	}
	if m.n--; m.n == 0 {
		if m.panic {
			panic("faultMemory: injected")
		}
		return 0, errors.New("faultMemory: injected")
	}
	return m.ProcessMemory.ReadAt(p, addr)
}

// countingStopper counts stops and resumes of a testStopper, and arms a
// faultMemory when it stops the target.
type countingStopper struct {
	*testStopper
	stops, resumes int
	arm            *faultMemory
}

func (s *countingStopper) Stop() ([]Thread, error) {
	s.stops++
	if s.arm != nil {
		s.arm.armed = true
	}
	return s.testStopper.Stop()
}
func (s *countingStopper) Resume() error { s.resumes++; return s.testStopper.Resume() }

// TestReadResumesTheTarget checks that a Read resumes the target however
// it ends while the target is stopped: a read error, a panic, and that a
// cancelled context stops nothing.
func TestReadResumesTheTarget(t *testing.T) {
	tg := startTarget(t, livechild.Build{})
	for _, tc := range []struct {
		name  string
		n     int
		panic bool
	}{{"error reading the list", 1, false}, {"panic reading the list", 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &faultMemory{ProcessMemory: NewProcessMemory(tg.PID), n: tc.n, panic: tc.panic}
			s := &countingStopper{testStopper: newTestStopper(t, tg.PID), arm: mem}
			func() {
				defer func() {
					if p := recover(); (p != nil) != tc.panic {
						t.Errorf("recovered %v, want a panic: %v", p, tc.panic)
					}
				}()
				_, _, err := Read(context.Background(), tg.bin, mem, Options{Stopper: s})
				if err == nil {
					t.Error("Read succeeded through a failing memory")
				}
			}()
			if s.stops != 1 || s.resumes != 1 {
				t.Errorf("%d stops, %d resumes: want the target resumed", s.stops, s.resumes)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &countingStopper{testStopper: newTestStopper(t, tg.PID)}
	if _, _, err := Read(ctx, tg.bin, NewProcessMemory(tg.PID), Options{Stopper: s}); !errors.Is(err, context.Canceled) || s.stops != 0 {
		t.Errorf("a cancelled read: %v, %d stops", err, s.stops)
	}
	// The target still answers and still reads whole.
	if d, _ := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID)}); len(d.Routines) < 25 {
		t.Errorf("%d goroutines read after the faults", len(d.Routines))
	}
	if b := tg.Traceback(t); len(b) == 0 {
		t.Error("the target does not answer")
	}
}
