package goproc

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// heldStopper measures how long the target was held stopped between
// Stop returning and Resume being called: the reader's own share of the
// stall (stopping and resuming the threads is internal/ptrace's).
type heldStopper struct {
	*testStopper
	stopped time.Time
	held    time.Duration
}

func (s *heldStopper) Stop() ([]Thread, error) {
	th, err := s.testStopper.Stop()
	s.stopped = time.Now()
	return th, err
}

func (s *heldStopper) Resume() error {
	s.held = time.Since(s.stopped)
	return s.testStopper.Resume()
}

// BenchmarkRead reads a target with 1,000, 10,000 and 100,000 parked
// goroutines, stopped (reporting how long the reader held it stopped) and
// not.
//
//	go test ./goproc -run '^$' -bench Read -benchtime 5x
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		tg := startTarget(b, livechild.Build{}, "-n", strconv.Itoa(n))
		b.Run("n="+strconv.Itoa(n)+"/stopped", func(b *testing.B) {
			var held, least time.Duration
			for i := 0; i < b.N; i++ {
				s := &heldStopper{testStopper: newTestStopper(b, tg.PID)}
				if _, _, err := Read(context.Background(), tg.bin, NewProcessMemory(tg.PID), Options{Stopper: s}); err != nil {
					b.Fatal(err)
				}
				held = max(held, s.held)
				if least == 0 || s.held < least {
					least = s.held
				}
			}
			b.ReportMetric(float64(least.Microseconds()), "held-µs-min")
			b.ReportMetric(float64(held.Microseconds()), "held-µs-max")
		})
		b.Run("n="+strconv.Itoa(n)+"/live", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := Read(context.Background(), tg.bin, NewProcessMemory(tg.PID), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
