package dumper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// loadConfig sizes TestEndpointUnderLoad: a short run in the test suite,
// a long one with STACKDUMP_SOAK=1 (figures in docs/RELIABILITY.md).
type loadConfig struct {
	goroutines int           // parked in the service
	clients    int           // concurrent dump clients
	duration   time.Duration // how long they keep asking
	slowloris  int           // clients that send half a request
	nonReaders int           // clients that never read their answer
}

func loadConfigFromEnv() loadConfig {
	c := loadConfig{goroutines: 10_000, clients: 200, duration: 5 * time.Second, slowloris: 10, nonReaders: 5}
	if os.Getenv("STACKDUMP_SOAK") != "" {
		c.duration = 30 * time.Second
	}
	return c
}

// The service's own settings: what docs/endpoint.md tells a service to use.
const (
	loadReadHeaderTimeout = time.Second
	loadWriteTimeout      = 2 * time.Second // HandlerOptions.WriteTimeout
	loadMaxWait           = 250 * time.Millisecond
)

// loadStats counts what the dump clients got.
type loadStats struct {
	ok, tooMany, unavailable, other, failed atomic.Int64
	bytes                                   atomic.Int64
	firstErr                                atomic.Value // string
}

func (s *loadStats) fail(err error) {
	s.failed.Add(1)
	s.firstErr.CompareAndSwap(nil, err.Error())
}

// heapSampler records the highest heap seen while it runs.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			h.peak = max(h.peak, s[0].Value.Uint64())
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	<-h.done
	return h.peak
}

// liveHeap is the heap in use after two collections (the second empties
// the sync.Pools' victim caches: pooled compressors and buffers are no
// part of what a dump leaves behind).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestEndpointUnderLoad serves the dump endpoint of a process with 10,000
// goroutines to 200 clients at once, beside slowloris clients and
// clients that never read, while a trivial handler of the same server is
// timed. The dumps keep coming (one at a time, the rest answered 429),
// every answer is a whole dump or a 429, the trivial handler stays
// responsive, slow clients are cut by the deadlines, and goroutines and
// heap return to their baseline afterwards.
func TestEndpointUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s of load")
	}
	cfg := loadConfigFromEnv()
	stopParked := benchGoroutines(t, cfg.goroutines)
	defer stopParked()

	var handlerErrs atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/debug/stackdump", Handler(HandlerOptions{
		MaxWait:      loadMaxWait,
		WriteTimeout: loadWriteTimeout,
		OnError:      func(*http.Request, error) { handlerErrs.Add(1) },
	}))
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: loadReadHeaderTimeout, IdleTimeout: 5 * time.Second}
	go srv.Serve(l)
	defer srv.Close()
	base := "http://" + l.Addr().String()

	// Warm up, then take the baseline: a full capture keeps its traceback
	// buffer for the next one (stackbuf.go), which belongs to the baseline.
	warm := &http.Client{Timeout: 30 * time.Second}
	for _, q := range []string{"", "?mode=grouped"} {
		if resp, err := warm.Get(base + "/debug/stackdump" + q); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	warm.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	baseGoroutines := runtime.NumGoroutine()
	baseHeap := liveHeap()
	heap := sampleHeap()

	ctx, cancel := context.WithTimeout(context.Background(), cfg.duration)
	defer cancel()
	transport := &http.Transport{MaxIdleConnsPerHost: cfg.clients, DisableCompression: true}
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	var stats loadStats
	var wg sync.WaitGroup

	// Dump clients: a mix of modes, formats and compressions, each read
	// to the end (the first of each read back as a dump: grouped text is
	// for people, so groups are asked for as JSON); bounded in time and
	// in count.
	queries := []struct{ query, encoding string }{
		{"", ""},
		{"?format=json", "gzip"},
		{"?mode=grouped&format=json", ""},
		{"?dedupe=1&format=json", "zstd"},
	}
	var checked sync.Map // query: whether one answer was read back
	for c := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000 && ctx.Err() == nil; i++ {
				q := queries[(c+i)%len(queries)]
				// The first answer to each query is read back as a dump:
				// its request outlives the load window (the client's
				// timeout bounds it), or a dump still streaming when the
				// window closes would read as cut.
				_, loaded := checked.LoadOrStore(q.query, true)
				reqCtx := ctx
				if !loaded {
					reqCtx = context.WithoutCancel(ctx)
				}
				req, _ := http.NewRequestWithContext(reqCtx, http.MethodGet, base+"/debug/stackdump"+q.query, nil)
				if q.encoding != "" {
					req.Header.Set("Accept-Encoding", q.encoding)
				}
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						stats.fail(err)
					}
					return
				}
				switch {
				case !loaded && resp.StatusCode == http.StatusOK:
					checkDumpBody(t, resp, cfg.goroutines)
				case !loaded:
					checked.Delete(q.query) // a 429: read back a later answer
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				stats.bytes.Add(n)
				switch {
				case err != nil && ctx.Err() == nil:
					stats.fail(fmt.Errorf("%s: reading the body after %d bytes: %w", q.query, n, err))
				case resp.StatusCode == http.StatusOK:
					stats.ok.Add(1)
				case resp.StatusCode == http.StatusTooManyRequests:
					stats.tooMany.Add(1)
					if resp.Header.Get("Retry-After") == "" {
						stats.fail(errors.New("429 without Retry-After"))
					}
				case resp.StatusCode == http.StatusServiceUnavailable:
					stats.unavailable.Add(1)
				default:
					stats.other.Add(1)
					stats.fail(fmt.Errorf("%s: status %d", q.query, resp.StatusCode))
				}
			}
		}()
	}

	// Slow clients: half a request, and a whole request whose answer is
	// never read (a tiny receive buffer, so the server's writes block).
	type slowConn struct {
		conn   net.Conn
		kind   string
		opened time.Time
	}
	slowConns := make(chan slowConn, cfg.slowloris+cfg.nonReaders)
	dialSmall := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	for i := range cfg.slowloris + cfg.nonReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * cfg.duration / time.Duration(2*(cfg.slowloris+cfg.nonReaders)))
			conn, err := dialSmall.Dial("tcp", l.Addr().String())
			if err != nil {
				stats.fail(err)
				return
			}
			sc := slowConn{conn: conn, kind: "slowloris", opened: time.Now()}
			if i < cfg.slowloris {
				fmt.Fprintf(conn, "GET /debug/stackdump HTTP/1.1\r\nHost: %s\r\nUser-Agent: slow", l.Addr())
			} else {
				sc.kind = "non-reader"
				fmt.Fprintf(conn, "GET /debug/stackdump?format=text HTTP/1.1\r\nHost: %s\r\n\r\n", l.Addr())
			}
			slowConns <- sc
		}()
	}

	// The service's own latency: a trivial handler of the same server,
	// on its own connection, every 20 ms through the load.
	var latencies []time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		ping := &http.Client{Timeout: 30 * time.Second}
		defer ping.CloseIdleConnections()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			start := time.Now()
			resp, err := ping.Get(base + "/ping")
			if err != nil {
				stats.fail(fmt.Errorf("ping: %w", err))
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			latencies = append(latencies, time.Since(start))
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	wg.Wait()
	close(slowConns)
	transport.CloseIdleConnections()
	peakHeap := heap.finish()

	// Slow clients must have been cut: the server closed their
	// connections (EOF or reset) within its deadlines, even those that
	// arrived last.
	for sc := range slowConns {
		sc.conn.SetReadDeadline(time.Now().Add(loadReadHeaderTimeout + loadWriteTimeout + 10*time.Second))
		_, err := io.Copy(io.Discard, sc.conn)
		sc.conn.Close()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s connection not closed by the server after %v", sc.kind, time.Since(sc.opened).Round(time.Millisecond))
		}
	}

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	t.Logf("%d goroutines, %d clients for %v: %d dumps (%.1f MiB), %d × 429, %d × 503, %d other, %d failed; handler errors %d",
		cfg.goroutines, cfg.clients, cfg.duration, stats.ok.Load(), float64(stats.bytes.Load())/(1<<20), stats.tooMany.Load(), stats.unavailable.Load(), stats.other.Load(), stats.failed.Load(), handlerErrs.Load())
	t.Logf("/ping latency over %d requests: p50 %v, p99 %v, max %v", len(latencies), pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	t.Logf("heap: %.0f MiB live before, peak %.0f MiB during the load", float64(baseHeap)/(1<<20), float64(peakHeap)/(1<<20))
	if e := stats.firstErr.Load(); e != nil {
		t.Errorf("%d requests failed; first: %s", stats.failed.Load(), e)
	}
	if stats.ok.Load() == 0 || stats.tooMany.Load() == 0 {
		t.Errorf("%d dumps and %d × 429: want both under this load", stats.ok.Load(), stats.tooMany.Load())
	}
	// One dump is held at a time however many clients ask.
	if peakHeap > baseHeap+256<<20 {
		t.Errorf("peak heap %d MiB during the load, %d MiB before", peakHeap>>20, baseHeap>>20)
	}
	if len(latencies) == 0 || pct(0.99) > 5*time.Second {
		t.Errorf("/ping p99 %v over %d requests: the service stopped answering", pct(0.99), len(latencies))
	}

	// Everything returns to the baseline: goroutines at once or nearly
	// (connections winding down), heap after a collection.
	deadline := time.Now().Add(15 * time.Second)
	for runtime.NumGoroutine() > baseGoroutines+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseGoroutines+2 {
		t.Errorf("%d goroutines after the load, %d before", n, baseGoroutines)
	}
	// The heap too, once the last connections and their buffers are gone.
	after, deadline := liveHeap(), time.Now().Add(10*time.Second)
	for after > baseHeap+32<<20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		after = liveHeap()
	}
	if after > baseHeap+32<<20 {
		t.Errorf("heap %d MiB after the load, %d MiB before", after>>20, baseHeap>>20)
	} else {
		t.Logf("heap after: %.0f MiB", float64(after)/(1<<20))
	}
}

// checkDumpBody reads an answer back as a dump and checks that it holds
// at least n goroutines; it leaves the body to the caller to drain.
func checkDumpBody(t *testing.T, resp *http.Response, n int) {
	var body io.Reader = resp.Body
	dumps, err := formats.ReadAll(bufio.NewReader(body), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Errorf("%s: %d dumps, %v", resp.Request.URL, len(dumps), err)
		return
	}
	if dumps[0].Total < int64(n) {
		t.Errorf("%s: a dump of %d goroutines, want at least %d", resp.Request.URL, dumps[0].Total, n)
	}
	if !strings.Contains(resp.Request.URL.RawQuery, "mode=grouped") && len(dumps[0].Routines) == 0 {
		t.Errorf("%s: no routines", resp.Request.URL)
	}
}
