//go:build go1.26

package tracesnap

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/trace"
	"sync"
	"testing"
	"time"
)

// busy runs work that makes the tracer write most kinds of events until
// stop is closed: goroutines created, blocked, woken and ended across
// procs, syscalls (file writes, sleeps), GC cycles with mark assists,
// user tasks, regions and logs, goroutines locked to their thread.
func busy(stop <-chan struct{}) (wait func()) {
	var wg sync.WaitGroup
	ch := make(chan int)
	wg.Go(func() { // producer and consumers, waking each other across Ps
		for i := 0; ; i++ {
			select {
			case <-stop:
				close(ch)
				return
			case ch <- i:
			}
			if i%256 == 255 {
				time.Sleep(200 * time.Microsecond)
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for v := range ch {
				if v%64 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	wg.Go(func() { // short-lived goroutines and garbage
		var sink [][]byte
		for {
			select {
			case <-stop:
				return
			default:
			}
			var inner sync.WaitGroup
			for range 8 {
				inner.Go(func() { sink = append(sink[:0], make([]byte, 64<<10)) })
				inner.Wait()
			}
			if len(sink) > 0 && sink[0] == nil {
				panic("unreachable")
			}
		}
	})
	wg.Go(func() { // syscalls
		f, err := os.CreateTemp("", "tracesnap-busy")
		if err != nil {
			return
		}
		defer os.Remove(f.Name())
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			f.WriteAt(buf, 0)
			time.Sleep(50 * time.Microsecond)
		}
	})
	wg.Go(func() { // annotations, on a locked thread
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, task := trace.NewTask(context.Background(), "busy")
			trace.WithRegion(ctx, "region", func() { trace.Log(ctx, "k", "v") })
			task.End()
			time.Sleep(100 * time.Microsecond)
		}
	})
	wg.Go(func() { // GC cycles
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.GC()
			}
		}
	})
	return wg.Wait
}

// traceBusy records a trace of d, the busy work running for its first
// busyFor (all of it when busyFor >= d) and a ticking goroutine after.
func traceBusy(t *testing.T, d, busyFor time.Duration) []byte {
	t.Helper()
	stop := make(chan struct{})
	wait := busy(stop)
	stopped := false
	defer func() {
		if !stopped {
			close(stop)
		}
		wait()
	}()
	time.Sleep(10 * time.Millisecond)
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("tracer busy: %v", err)
	}
	if busyFor < d {
		time.Sleep(busyFor)
		close(stop)
		stopped = true
		wait()
		tick := time.NewTicker(time.Millisecond)
		for end := time.Now().Add(d - busyFor); time.Now().Before(end); {
			<-tick.C
		}
		tick.Stop()
	} else {
		time.Sleep(d)
	}
	trace.Stop()
	return buf.Bytes()
}

func TestMatchesXExpTraceLive(t *testing.T) {
	needXExpGo126(t)
	for _, d := range []time.Duration{time.Millisecond, 30 * time.Millisecond} {
		data := traceBusy(t, d, d)
		n := compareReaders(t, "live "+d.String(), data)
		t.Logf("%v window: %d bytes, %d goroutine events and syncs equal", d, len(data), n)
	}
}

func TestMatchesXExpTraceGenerations(t *testing.T) {
	needXExpGo126(t)
	if testing.Short() {
		t.Skip("records 2.2 s")
	}
	data := traceBusy(t, 2200*time.Millisecond, 50*time.Millisecond) // three generations
	n := compareReaders(t, "live 2.2s", data)
	t.Logf("%d bytes, %d goroutine events and syncs equal", len(data), n)
}

func TestMatchesXExpTraceFlightRecorder(t *testing.T) {
	needXExpGo126(t)
	stop := make(chan struct{})
	wait := busy(stop)
	defer wait()
	defer close(stop)
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: 50 * time.Millisecond})
	if err := fr.Start(); err != nil {
		t.Skipf("tracer busy: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	var buf bytes.Buffer
	_, err := fr.WriteTo(&buf)
	fr.Stop()
	if err != nil {
		t.Fatal(err)
	}
	n := compareReaders(t, "flight recorder", buf.Bytes())
	t.Logf("%d bytes, %d goroutine events and syncs equal", buf.Len(), n)
}
