package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
)

// The 1M capture: issue 26's target for trace mode, measured beside its
// floor in the same process and the same run.

const (
	captureGoroutines = 1_000_000
	// Every captureLabelEvery-th goroutine runs under pprof labels, one
	// label set per stack (capturedTenants of them), so that every label
	// can be joined and the dump must carry all of them.
	captureLabelEvery = 100
	capturedTenants   = 7
)

// The goroutines are parked once per process, for the benchmark's first
// run (b.N = 1) and its measured one alike, and stay parked until the
// process ends: parking and releasing a million takes longer than an op.
var captureOnce sync.Once

// captureLot holds the parked goroutines.
type captureLot struct {
	release chan struct{} // never closed: the goroutines stay parked
	parked  atomic.Int64
}

// parkCapture starts n goroutines 3–12 frames deep, blocked on a channel
// receive, every captureLabelEvery-th under labels, and waits until all
// are parked.
func parkCapture(n int) *captureLot {
	l := &captureLot{release: make(chan struct{})}
	for i := range n {
		if i%captureLabelEvery == 0 {
			tenant := (i / captureLabelEvery) % capturedTenants
			go func() {
				pprof.Do(context.Background(), pprof.Labels("tenant", fmt.Sprint(tenant)), func(context.Context) {
					l.parkLabelled(3 + tenant)
				})
			}()
			continue
		}
		depth := 3 + i%10
		go func() {
			l.park(depth)
		}()
	}
	for l.parked.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // from counted to parked
	return l
}

//go:noinline
func (l *captureLot) park(depth int) {
	if depth == 0 {
		l.parked.Add(1)
		<-l.release
		return
	}
	l.park(depth - 1)
}

//go:noinline
func (l *captureLot) parkLabelled(depth int) {
	if depth == 0 {
		l.parked.Add(1)
		<-l.release
		return
	}
	l.parkLabelled(depth - 1)
}

// captureDir returns where the capture's file goes: a directory in
// /dev/shm when there is one (as the dumper's own capture benchmarks do:
// the measure is of the capture, not of the disk under a loaded
// machine), else the test's temporary directory.
func captureDir(b *testing.B) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "stackdump-capture-")
		if err == nil {
			b.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return b.TempDir()
}

// pauseHist reads the histograms of non-GC and GC stop-the-world pauses.
func pauseHist() [2]metrics.Sample {
	s := [2]metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}, {Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s[:])
	return s
}

// longestSince returns the longest pause of each histogram added since
// before, at its bucket's upper bound (the buckets are ~12% wide).
func longestSince(before [2]metrics.Sample) (other, gc time.Duration) {
	now := pauseHist()
	top := func(a, b metrics.Value) time.Duration {
		ha, hb := a.Float64Histogram(), b.Float64Histogram()
		for i := len(hb.Counts) - 1; i >= 0; i-- {
			if hb.Counts[i] > ha.Counts[i] {
				hi := hb.Buckets[i+1]
				if math.IsInf(hi, 1) {
					hi = hb.Buckets[i]
				}
				return time.Duration(hi * float64(time.Second))
			}
		}
		return 0
	}
	return top(before[0].Value, now[0].Value), top(before[1].Value, now[1].Value)
}

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkCapture1M parks 1,000,000 goroutines (3–12 frames deep, 1%
// under pprof labels) and measures in each op, back to back, in an order
// that alternates:
//
//   - floor: runtime.GoroutineProfile into a presized slice: every stack
//     and nothing else, the runtime's own snapshot, which any capture that
//     must see every stack costs at least;
//   - trace: dumper.WriteFile(ctx, "x.json.gz", {Capture: {Mode:
//     ModeTrace}}): capture, labels, JSON, gzip, file;
//   - (outside the timer) the same with NoLabels: no goroutine profile
//     walk, which is what finding the labels costs;
//   - (outside the timer) the endpoint's GET ?mode=trace&format=json with
//     gzip, over loopback, the body read and dropped.
//
// It reports each one's wall and CPU time (floor-ms, trace-ms, floor-cpu-ms,
// trace-cpu-ms), their ratios (ratio, cpu-ratio: the mean of each op's;
// nolabels-ms and nolabels-ratio for the third; endpoint-ms,
// endpoint-ratio and endpoint-stw-max-us for the fourth),
// the trace capture's longest stop-the-world pause (stw-max-us; GC pauses
// apart, gc-stw-max-us) and GC cycles (gc-cycles), the file's size, the
// process's peak RSS, and, read back from the last file, the goroutines
// in it and how many carry labels (labelled: must be all 10,000).
// It needs about 3.7 GiB and 1–1.5 minutes on 2 CPUs; -short skips it.
func BenchmarkCapture1M(b *testing.B) {
	if testing.Short() {
		b.Skip("parks a million goroutines: about 3.5 GiB and a minute")
	}
	captureOnce.Do(func() { parkCapture(captureGoroutines) })
	path := filepath.Join(captureDir(b), "x.json.gz")
	recs := make([]runtime.StackRecord, captureGoroutines+1000)
	var floorWall, traceWall, floorCPU, traceCPU, bareWall, httpWall time.Duration
	var ratio, cpuRatio, bareRatio, httpRatio float64
	var httpSTW time.Duration
	srv := httptest.NewServer(dumper.Handler(dumper.HandlerOptions{}))
	defer srv.Close()
	var stwMax, gcMax time.Duration
	var gcs uint64
	var size int64
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		var fw, tw, fc, tc time.Duration
		floor := func() {
			runtime.GC()
			b.StartTimer()
			w0, c0 := time.Now(), CPUTime()
			if _, ok := runtime.GoroutineProfile(recs); !ok {
				b.Fatal("GoroutineProfile: slice too small")
			}
			fw, fc = time.Since(w0), CPUTime()-c0
			b.StopTimer()
		}
		capture := func() {
			runtime.GC()
			b.StartTimer()
			before, g0 := pauseHist(), gcCycles()
			w0, c0 := time.Now(), CPUTime()
			err := dumper.WriteFile(context.Background(), path, dumper.FileOptions{Capture: dumper.CaptureOptions{Mode: dumper.ModeTrace}})
			tw, tc = time.Since(w0), CPUTime()-c0
			other, gc := longestSince(before)
			gcs += gcCycles() - g0
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			stwMax, gcMax = max(stwMax, other), max(gcMax, gc)
		}
		// Trace mode without the labels' walk (NoLabels): what finding
		// the labels costs. Outside the timer: it is not the target's.
		bare := func() time.Duration {
			runtime.GC()
			w0 := time.Now()
			if err := dumper.WriteFile(context.Background(), path, dumper.FileOptions{Capture: dumper.CaptureOptions{Mode: dumper.ModeTrace, NoLabels: true}}); err != nil {
				b.Fatal(err)
			}
			return time.Since(w0)
		}
		// The endpoint's ?mode=trace, JSON+gzip over loopback, the body
		// read and dropped: outside the timer too.
		endpoint := func() time.Duration {
			runtime.GC()
			before := pauseHist()
			w0 := time.Now()
			if err := getTrace(srv.URL); err != nil {
				b.Fatal(err)
			}
			d := time.Since(w0)
			other, _ := longestSince(before)
			httpSTW = max(httpSTW, other)
			return d
		}
		var bw, hw time.Duration
		if i%2 == 0 {
			floor()
			bw = bare()
			hw = endpoint()
			capture()
		} else {
			capture()
			hw = endpoint()
			bw = bare()
			floor()
		}
		bareWall += bw
		bareRatio += float64(bw) / float64(fw)
		httpWall += hw
		httpRatio += float64(hw) / float64(fw)
		floorWall += fw
		traceWall += tw
		floorCPU += fc
		traceCPU += tc
		ratio += float64(tw) / float64(fw)
		if fc > 0 {
			cpuRatio += float64(tc) / float64(fc)
		}
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	b.ReportMetric(ms(floorWall), "floor-ms")
	b.ReportMetric(ms(traceWall), "trace-ms")
	b.ReportMetric(ms(floorCPU), "floor-cpu-ms")
	b.ReportMetric(ms(traceCPU), "trace-cpu-ms")
	b.ReportMetric(ratio/n, "ratio")
	b.ReportMetric(ms(bareWall), "nolabels-ms")
	b.ReportMetric(bareRatio/n, "nolabels-ratio")
	b.ReportMetric(ms(httpWall), "endpoint-ms")
	b.ReportMetric(httpRatio/n, "endpoint-ratio")
	b.ReportMetric(float64(httpSTW)/float64(time.Microsecond), "endpoint-stw-max-us")
	b.ReportMetric(cpuRatio/n, "cpu-ratio")
	b.ReportMetric(float64(stwMax)/float64(time.Microsecond), "stw-max-us")
	b.ReportMetric(float64(gcMax)/float64(time.Microsecond), "gc-stw-max-us")
	b.ReportMetric(float64(gcs)/n, "gc-cycles")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(PeakRSS())/(1<<20), "peak-rss-MiB")
	total, labelled := readBackCapture(b, path)
	b.ReportMetric(float64(total), "goroutines")
	b.ReportMetric(float64(labelled), "labelled")
	if want := captureGoroutines / captureLabelEvery; labelled != want {
		b.Errorf("%d goroutines in the dump carry labels, want %d", labelled, want)
	}
}

// getTrace asks the endpoint at url for a trace-mode dump as JSON, gzip
// encoded, and reads the body to its end.
func getTrace(url string) error {
	req, err := http.NewRequest("GET", url+"?mode=trace&format=json", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && (resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || n == 0) {
		err = fmt.Errorf("GET ?mode=trace: %s, Content-Encoding %q, %d bytes", resp.Status, resp.Header.Get("Content-Encoding"), n)
	}
	return err
}

// readBackCapture reads the dump file, streaming, and counts its
// goroutines and those with a tenant label.
func readBackCapture(b *testing.B, path string) (total, labelled int) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rd := formats.NewReader(f, formats.ReadOptions{})
	if _, err := rd.Next(); err != nil {
		b.Fatal(err)
	}
	for r, err := range rd.Routines() {
		if err != nil {
			continue // warnings (none expected); counted routines only
		}
		if r == nil {
			continue
		}
		total++
		for _, l := range r.Labels {
			if l.Key == "tenant" {
				labelled++
				break
			}
		}
	}
	return total, labelled
}
