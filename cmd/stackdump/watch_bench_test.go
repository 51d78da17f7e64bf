package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Fleet benchmark shape: 200 targets; 10 answer debug=2 after
// fleetSlowDelay, 5 answer 404 and 5 refuse connections; the others answer
// at once with real debug=1 and debug=2 dumps of 150 to 450 goroutines.
const (
	fleetTargets   = 200
	fleetSlowDelay = 400 * time.Millisecond
)

//go:noinline
func fleetParked(ch chan struct{}, started *sync.WaitGroup) {
	started.Done()
	<-ch
}

// fleetDump is a real goroutine profile of this process, at debug=2 and
// debug=1 (a full capture fetches both), while n extra goroutines are
// parked in fleetParked.
func fleetDump(b *testing.B, n int) map[string][]byte {
	ch := make(chan struct{})
	var started, done sync.WaitGroup
	for range n {
		started.Add(1)
		done.Go(func() { fleetParked(ch, &started) })
	}
	started.Wait()
	out := map[string][]byte{}
	for _, debug := range []int{1, 2} {
		var buf bytes.Buffer
		if err := pprof.Lookup("goroutine").WriteTo(&buf, debug); err != nil {
			b.Fatal(err)
		}
		out[strconv.Itoa(debug)] = buf.Bytes()
	}
	close(ch)
	done.Wait()
	return out
}

// fleetTargetsFor starts the benchmark's 200 loopback targets.
func fleetTargetsFor(b *testing.B) []string {
	dumps := []map[string][]byte{fleetDump(b, 150), fleetDump(b, 300), fleetDump(b, 450)}
	var targets []string
	var refused []net.Listener
	for i := range fleetTargets {
		var h http.HandlerFunc
		switch {
		case i%40 == 13: // refused: closed once every server has its port
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			refused = append(refused, l)
			targets = append(targets, "http://"+l.Addr().String())
			continue
		case i%40 == 33:
			h = http.NotFound
		default:
			bodies := dumps[i%len(dumps)]
			slow := i%20 == 7
			h = func(w http.ResponseWriter, r *http.Request) {
				body := bodies[r.URL.Query().Get("debug")]
				if r.URL.Path != "/debug/pprof/goroutine" || body == nil {
					http.NotFound(w, r) // the endpoint probe
					return
				}
				if slow && r.URL.Query().Get("debug") == "2" {
					time.Sleep(fleetSlowDelay)
				}
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Write(body)
			}
		}
		srv := httptest.NewServer(h)
		b.Cleanup(srv.Close)
		targets = append(targets, srv.URL)
	}
	for _, l := range refused {
		l.Close()
	}
	return targets
}

// BenchmarkWatchFleet runs watch rounds over 200 loopback targets at
// --concurrency 50 with --metrics served, while a client scrapes /metrics
// every 100 ms. Reported: round-ms, the worst round's time over its slowest
// capture (slowest-ratio, after the first round, which also probes every
// target's endpoint), the first round's (first-ratio), the largest heap
// seen (peak-heap-MiB), the growth of the heap retained between rounds
// (after a collection) from round 10 to the last (live-growth-MiB; run with -benchtime=100x for 100 rounds), the
// slowest /metrics answers during rounds (metrics-max-ms, metrics-p99-ms)
// and the median one between rounds (metrics-idle-ms), and the process's
// CPU time per round (cpu-ms/round: watch, the targets' servers and the
// scraper together, which share the process).
func BenchmarkWatchFleet(b *testing.B) {
	targets := fleetTargetsFor(b)
	cmd := newWatchCommand()
	cmd.SetErr(io.Discard)
	o := watchOptions{
		captureOptions: captureOptions{concurrency: 50, mode: "full", by: "stack", retries: -1,
			timeout: 30 * time.Second, connectTimeout: 5 * time.Second, maxBytes: 1 << 30},
		top: 15, leakAfter: 3,
	}
	w, err := newWatcher(cmd, targets, o)
	if err != nil {
		b.Fatal(err)
	}
	defer w.close()
	w.metrics = newWatchMetrics()
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := w.metrics.serve(ctx, mln, io.Discard)
	defer func() { cancel(); wait() }()

	// The scraper: GET /metrics every 100 ms while a round runs (a scrape
	// of 200 targets costs a few ms of CPU; Prometheus scrapes every 15 s
	// or more).
	var (
		mu        sync.Mutex
		inRound   bool
		latencies []time.Duration
		peak      uint64
	)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	scrapeURL := "http://" + mln.Addr().String() + "/metrics"
	stop := make(chan struct{})
	var scraper sync.WaitGroup
	scraper.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			start := time.Now()
			resp, err := client.Get(scrapeURL)
			if err != nil {
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(start)
			runtime.ReadMemStats(&ms)
			mu.Lock()
			if inRound {
				latencies = append(latencies, d)
			}
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
		}
	})

	liveHeap := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var worstRatio, firstRatio float64
	var live10, liveLast uint64
	var total time.Duration
	cpuStart := processCPU(b)
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		inRound = true
		mu.Unlock()
		outcomes := w.round(ctx)
		mu.Lock()
		inRound = false
		mu.Unlock()
		total += w.lastRound
		var slowest time.Duration
		for _, oc := range outcomes {
			slowest = max(slowest, oc.elapsed)
		}
		ratio := w.lastRound.Seconds() / slowest.Seconds()
		if i == 0 {
			firstRatio = ratio
		} else {
			worstRatio = max(worstRatio, ratio)
		}
		// What the watcher retains between rounds: the heap after a full
		// collection (outside the timed part).
		b.StopTimer()
		runtime.GC()
		metrics.Read(liveHeap)
		b.StartTimer()
		if i == min(9, b.N-1) {
			live10 = liveHeap[0].Value.Uint64()
		}
		liveLast = liveHeap[0].Value.Uint64()
	}
	b.StopTimer()
	cpu := processCPU(b) - cpuStart
	close(stop)
	scraper.Wait()
	// For scale: the same scrape between rounds (median of 20).
	var idle []time.Duration
	for range 20 {
		start := time.Now()
		resp, err := client.Get(scrapeURL)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		idle = append(idle, time.Since(start))
	}
	slices.Sort(idle)
	b.ReportMetric(float64(idle[len(idle)/2].Microseconds())/1000, "metrics-idle-ms")
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		b.Logf("%d scrapes: p50 %v p90 %v p99 %v max %v", n, latencies[n/2], latencies[n*9/10], latencies[n*99/100], latencies[n-1])
	}
	if len(latencies) > 0 {
		b.ReportMetric(float64(latencies[len(latencies)-1].Microseconds())/1000, "metrics-max-ms")
		b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "metrics-p99-ms")
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "round-ms")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/round")
	b.ReportMetric(worstRatio, "slowest-ratio")
	b.ReportMetric(firstRatio, "first-ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric((float64(liveLast)-float64(live10))/(1<<20), "live-growth-MiB")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
