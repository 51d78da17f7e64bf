package dumper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// BenchmarkCaptureModes compares what a dump costs the process at 10k and
// 100k parked goroutines (1M with STACKDUMP_BENCH_1M=1): full mode
// (runtime.Stack into a presized buffer), trace mode (a 1 ms execution
// trace) and grouped mode (the pprof goroutine profile, debug=0). Per
// operation it reports:
//
//	wall-ms      the capture's wall time (ns/op is the same, in ns)
//	trace-ms     trace mode: the part spent tracing (the rest is the
//	             goroutine profile taken for the labels)
//	trace-stw-max-us trace mode: the longest pause while tracing (the rest
//	             are the goroutine profile's)
//	stw-max-us   the longest stop-the-world pause (runtime/metrics bucket bound)
//	stw-total-us all stop-the-world pauses together
//	pauses       how many there were
//	gc-stw-max-us the longest GC pause meanwhile (a capture's allocations can
//	             start a collection)
//	stall-ms     the longest gap a 100 µs ticker goroutine saw
//	bytes        output size
//	parse-ms     reading the output with package formats (when its reader exists)
//	goroutines   runtime.NumGoroutine()
//
// Run the big sizes once: go test ./dumper -run '^$' -bench CaptureModes -benchtime 1x
// (-bench 'CaptureModes/n=10000/' for one size).
func BenchmarkCaptureModes(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("STACKDUMP_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			lot := newParkingLot(b, n, releasableKinds, 2000)
			defer lot.release()
			probe := startStallProbe()
			defer probe.stop()
			b.Run("mode=full", func(b *testing.B) { benchCapture(b, probe, fullMode()) })
			b.Run("mode=trace", func(b *testing.B) { benchCapture(b, probe, traceMode()) })
			b.Run("mode=grouped", func(b *testing.B) { benchCapture(b, probe, groupedMode()) })
		})
	}
}

// captureMode takes one dump: prepare runs outside the measurement,
// capture inside it; capture returns the dump's size and a function that
// reads it with package formats.
type captureMode struct {
	prepare func()
	capture func(b *testing.B) (size int, parse func() error)
	report  func(b *testing.B) // extra metrics, or nil
}

// readAs returns a parse function reading out as kind.
func readAs(out []byte, kind stack.Kind) func() error {
	return func() error {
		_, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Kind: kind})
		return err
	}
}

func fullMode() captureMode {
	var buf []byte
	return captureMode{
		prepare: func() {
			if n := runtime.NumGoroutine()*2600 + 1<<20; len(buf) < n {
				buf = make([]byte, n)
			}
		},
		capture: func(*testing.B) (int, func() error) {
			out := buf[:runtime.Stack(buf, true)]
			return len(out), readAs(out, stack.KindGoTraceback)
		},
	}
}

// traceMode is captureTrace: the trace, the goroutine profile's labels
// and the trace's decoding (the capture), then the routines made with
// their labels (the parse); its size is the trace's.
func traceMode() captureMode {
	var traced, tracePause time.Duration
	return captureMode{
		prepare: func() {},
		report: func(b *testing.B) {
			b.ReportMetric(float64(traced)/float64(time.Millisecond)/float64(b.N), "trace-ms")
			b.ReportMetric(float64(tracePause)/float64(time.Microsecond), "trace-stw-max-us")
		},
		capture: func(b *testing.B) (int, func() error) {
			rec, err := recordTrace(context.Background(), traceOptions{})
			if err != nil {
				b.Fatal(err)
			}
			t := stack.NewTable()
			tb, n, err := rec.decodeTrace(t)
			if err != nil {
				b.Fatal(err)
			}
			traced += rec.traced
			tracePause = max(tracePause, rec.tracePause.Longest)
			d, s := rec.snapshot(tb, n, t)
			return rec.trace.Len(), func() error {
				s.fill(d)
				return nil
			}
		},
	}
}

func groupedMode() captureMode {
	return captureMode{
		prepare: func() {},
		capture: func(b *testing.B) (int, func() error) {
			var buf bytes.Buffer
			if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
				b.Fatal(err)
			}
			return buf.Len(), readAs(buf.Bytes(), stack.KindGoPprof)
		},
	}
}

// benchCapture measures mode. The pause histograms and the stall probe are read
// inside the benchmark timer, because StartTimer and StopTimer stop the
// world themselves (runtime.ReadMemStats).
func benchCapture(b *testing.B, probe *stallProbe, mode captureMode) {
	var wall, parse, stall, stwMax, stwTotal, gcMax time.Duration
	var pauses, size int
	parsed := true
	b.StopTimer()
	for range b.N {
		mode.prepare()
		runtime.GC()
		time.Sleep(20 * time.Millisecond) // let the probe settle
		b.StartTimer()
		before, gcBefore := readPauses(), readGCPauses()
		probe.reset()
		start := time.Now()
		n, parseOut := mode.capture(b)
		wall += time.Since(start)
		stall = max(stall, probe.max())
		s := readPauses().since(before)
		_, _, gcLongest := histDiff(gcBefore, readGCPauses())
		b.StopTimer()
		gcMax = max(gcMax, gcLongest)
		stwMax = max(stwMax, s.Longest)
		stwTotal += s.Total
		pauses += s.Count
		size += n
		t0 := time.Now()
		if err := parseOut(); err != nil {
			parsed = false // that reader is not written yet
		}
		parse += time.Since(t0)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(wall), "wall-ms")
	b.ReportMetric(float64(stwMax)/float64(time.Microsecond), "stw-max-us")
	b.ReportMetric(float64(stwTotal)/float64(time.Microsecond)/float64(b.N), "stw-total-us")
	b.ReportMetric(float64(pauses)/float64(b.N), "pauses")
	b.ReportMetric(float64(gcMax)/float64(time.Microsecond), "gc-stw-max-us")
	b.ReportMetric(float64(stall)/float64(time.Millisecond), "stall-ms")
	b.ReportMetric(float64(size)/float64(b.N), "bytes")
	if parsed {
		b.ReportMetric(ms(parse), "parse-ms")
	}
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
	if mode.report != nil {
		mode.report(b)
	}
}

// readGCPauses reads the histogram of GC stop-the-world pauses: a
// capture's allocations can start a collection.
func readGCPauses() metrics.Value {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s)
	return s[0].Value
}

// stallProbe is a goroutine woken by a 100 µs ticker that records the
// longest gap between two wake-ups: how long the application could not
// run.
type stallProbe struct {
	gap  atomic.Int64
	last atomic.Int64
	done chan struct{}
}

func startStallProbe() *stallProbe {
	p := &stallProbe{done: make(chan struct{})}
	p.last.Store(time.Now().UnixNano())
	go func() {
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-tick.C:
				n := time.Now().UnixNano()
				if g := n - p.last.Swap(n); g > p.gap.Load() {
					p.gap.Store(g)
				}
			}
		}
	}()
	return p
}

func (p *stallProbe) reset() {
	p.last.Store(time.Now().UnixNano())
	p.gap.Store(0)
}

// max returns the longest gap since reset, including the one still open.
func (p *stallProbe) max() time.Duration {
	open := time.Now().UnixNano() - p.last.Load()
	return time.Duration(max(p.gap.Load(), open))
}

func (p *stallProbe) stop() { close(p.done) }
