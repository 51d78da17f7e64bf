// Command pausetarget is the live target of the pause-budget, connection,
// timeout and error-text tests of capture and watch
// (cmd/stackdump/capture_budget_test.go, watch_budget_test.go): a Go
// program that parks -goroutines goroutines, serves net/http/pprof on one
// loopback port and, on a second one (the control port), what it saw of
// its own costs:
//
//	GET /stats   {"connections": N, "requests": [{"path", "query", "pause_max_ns", "pause_total_ns", "pauses"}], "max_pause_ns": N}
//	GET /grow?n=N&depth=D   parks N more goroutines D frames down, answers once they are parked
//
// "connections" counts the connections the pprof port accepted; each
// request's pauses are the non-GC stop-the-world pauses the runtime
// recorded while it was served (runtime/metrics
// /sched/pauses/total/other:seconds, each pause at its histogram bucket's
// upper bound: an "at most"), and "max_pause_ns" is the longest of all.
// Requests to the pprof port are served one at a time, so that each one's
// pauses are its own.
//
// Flags: -goroutines N (parked in a few stacks 10–30 frames deep, or
// -depth D frames),
// -no-trace (404 on /debug/pprof/trace, as behind a proxy that passes only
// the goroutine profile), -delay D (each pprof answer waits D first),
// -hang (the pprof port accepts connections and never answers), -banner
// (the pprof port is no HTTP server: it writes an SSH-like banner and
// closes), -fail-rounds 2,3 (every request from the 2nd debug=1 request up
// to the next is answered 503, and so from the 3rd: under watch's pause
// budget each snapshot starts with one debug=1 request, so those snapshots
// fail), -addr HOST:PORT (the pprof port's address: a restarted target
// listens where its predecessor did), -churn N (N goroutines started and
// ended before it listens, as a process that served requests for a while
// has handed out that many goroutine ids).
//
// It prints "listening ADDR control ADDR" once every goroutine is parked
// and exits when its standard input closes. The tests build it with
// `go build -o DIR/pausetarget ./testdata/gen/pausetarget`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/metrics"
	rpprof "runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// held is locked by main before any goroutine parks on it.
var held sync.Mutex

const pauseMetric = "/sched/pauses/total/other:seconds"

// request is one pprof request and the pauses served with it.
type request struct {
	Path         string `json:"path"`
	Query        string `json:"query"`
	PauseMaxNs   int64  `json:"pause_max_ns"`
	PauseTotalNs int64  `json:"pause_total_ns"`
	Pauses       int    `json:"pauses"`
}

type stats struct {
	mu          sync.Mutex
	connections atomic.Int64
	requests    []request
	maxPause    time.Duration
}

func main() {
	n := flag.Int("goroutines", 1000, "goroutines parked")
	depth := flag.Int("depth", -1, "frames each goroutine parks under (-1: 10, 20 or 30)")
	noTrace := flag.Bool("no-trace", false, "answer 404 on /debug/pprof/trace")
	delay := flag.Duration("delay", 0, "wait this long before each pprof answer")
	hang := flag.Bool("hang", false, "accept connections on the pprof port and never answer")
	banner := flag.Bool("banner", false, "the pprof port writes a non-HTTP banner and closes")
	failRounds := flag.String("fail-rounds", "", "comma-separated numbers of debug=1 requests from which requests fail with 503, up to the next debug=1")
	addr := flag.String("addr", "127.0.0.1:0", "address of the pprof port")
	churn := flag.Int("churn", 0, "goroutines started and ended before listening")
	flag.Parse()
	var churned sync.WaitGroup
	for range *churn {
		churned.Add(1)
		go churned.Done()
	}
	churned.Wait()
	fail := map[int]bool{}
	for _, f := range strings.Split(*failRounds, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			fail[n] = true
		}
	}

	held.Lock()
	park := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(*n)
	for i := range *n {
		d := i%3*10 + 10
		if *depth >= 0 {
			d = *depth
		}
		go deep(d, i%4, park, &ready)
	}
	ready.Wait()

	st := &stats{}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", func(w http.ResponseWriter, r *http.Request) {
		if *noTrace {
			http.NotFound(w, r)
			return
		}
		pprof.Trace(w, r)
	})
	var one sync.Mutex
	counts := 0 // debug=1 requests so far
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if *hang {
				<-r.Context().Done()
				return
			}
			one.Lock()
			defer one.Unlock()
			if r.URL.Query().Get("debug") == "1" {
				counts++
			}
			if fail[counts] {
				http.Error(w, fmt.Sprintf("failing round %d (-fail-rounds)", counts), http.StatusServiceUnavailable)
				return
			}
			time.Sleep(*delay)
			before := read()
			mux.ServeHTTP(w, r)
			count, total, longest := since(before, read())
			st.mu.Lock()
			st.requests = append(st.requests, request{Path: r.URL.Path, Query: r.URL.RawQuery, PauseMaxNs: int64(longest), PauseTotalNs: int64(total), Pauses: count})
			st.maxPause = max(st.maxPause, longest)
			st.mu.Unlock()
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				st.connections.Add(1)
			}
		},
	}
	if *banner {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				st.connections.Add(1)
				io.WriteString(c, "SSH-2.0-pausetarget\r\n")
				c.Close()
			}
		}()
	} else {
		go srv.Serve(ln)
	}
	go http.Serve(ctl, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/grow" {
			// Park n more goroutines, depth frames down, and answer once
			// they are parked.
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			d, _ := strconv.Atoi(r.URL.Query().Get("depth"))
			var more sync.WaitGroup
			more.Add(n)
			for i := range n {
				go deep(d, i%4, park, &more)
			}
			more.Wait()
			return
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		json.NewEncoder(w).Encode(struct {
			Connections int64     `json:"connections"`
			Requests    []request `json:"requests"`
			MaxPauseNs  int64     `json:"max_pause_ns"`
		}{st.connections.Load(), st.requests, int64(st.maxPause)})
	}))
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	// The servers' and the reader's goroutines are parked where they stay
	// before the line is printed: a watch that starts then sees the same
	// goroutines in every snapshot.
	for !settled() {
		time.Sleep(time.Millisecond)
	}
	fmt.Println("listening", ln.Addr(), "control", ctl.Addr())
	<-done
}

// settled reports whether both ports' accept loops and the standard
// input's reader are blocked where they wait.
// It reads the debug=1 goroutine profile, whose records group the
// parked goroutines, rather than every goroutine's traceback.
func settled() bool {
	var b strings.Builder
	rpprof.Lookup("goroutine").WriteTo(&b, 1)
	s := b.String()
	return strings.Count(s, "net.(*TCPListener).Accept+") >= 2 && strings.Contains(s, "os.(*File).Read+")
}

// deep parks on ch depth frames down; kind varies the parking primitive.
//
//go:noinline
func deep(depth, kind int, ch chan struct{}, ready *sync.WaitGroup) {
	if depth > 0 {
		deep(depth-1, kind, ch, ready)
		return
	}
	ready.Done()
	switch kind {
	case 0:
		<-ch
	case 1:
		select {
		case <-ch:
		case <-time.After(time.Hour):
		}
	case 2:
		held.Lock() // main holds it: they wait for ever
	default:
		time.Sleep(time.Hour)
	}
}

func read() metrics.Sample {
	s := []metrics.Sample{{Name: pauseMetric}}
	metrics.Read(s)
	return s[0]
}

// since returns the pauses recorded between two readings, each at its
// bucket's upper bound.
func since(a, b metrics.Sample) (count int, total, longest time.Duration) {
	ha, hb := a.Value.Float64Histogram(), b.Value.Float64Histogram()
	var secs, top float64
	for i := range hb.Counts {
		d := hb.Counts[i] - ha.Counts[i]
		if d == 0 {
			continue
		}
		hi := hb.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = hb.Buckets[i]
		}
		count += int(d)
		secs += float64(d) * hi
		top = max(top, hi)
	}
	return count, time.Duration(secs * 1e9), time.Duration(top * 1e9)
}
