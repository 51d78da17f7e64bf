package dumper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
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
	duration   time.Duration // how long they keep asking, at least
	// maxDuration bounds how much longer they keep asking when, after
	// duration, some kind of answer has not yet been read back whole or
	// /ping not yet answered while a dump was being written (a loaded
	// machine serves fewer dumps).
	maxDuration time.Duration
	slowloris   int // clients that send half a request
	nonReaders  int // clients that never read their answer
}

func loadConfigFromEnv() loadConfig {
	c := loadConfig{goroutines: 10_000, clients: 200, duration: 5 * time.Second, maxDuration: time.Minute, slowloris: 10, nonReaders: 5}
	if os.Getenv("STACKDUMP_SOAK") != "" {
		c.duration, c.maxDuration = 30*time.Second, 2*time.Minute
	}
	return c
}

// The service's own settings: what docs/endpoint.md tells a service to
// use. Its HandlerOptions.WriteTimeout is sized in the test from what a
// full dump takes on this machine as it is loaded now: dumpsPerWriteTimeout
// times the slower of a full text and a full JSON dump served alone, at
// least minLoadWriteTimeout. 200 clients contending for the CPU make a
// dump take 3 to 4 times as long as alone; the rest is room for the load
// of the machine to change during the run.
const (
	loadReadHeaderTimeout = time.Second
	loadIdleTimeout       = 5 * time.Second
	minLoadWriteTimeout   = 2 * time.Second
	dumpsPerWriteTimeout  = 10
	loadMaxWait           = 250 * time.Millisecond
)

// loadIDHeader numbers the dump clients' requests, for the handler's
// reports (OnError) to be matched with what the clients saw.
const loadIDHeader = "X-Load-Request"

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

// loadLog is what the server of TestEndpointUnderLoad did, and when
// /ping was answered. On a loaded machine the service's own deadlines cut
// well-behaved clients too: a dump that takes longer than WriteTimeout to
// capture and deliver is cut (or answered 503 when nothing was sent yet),
// and a request that reaches a new connection later than
// ReadHeaderTimeout after the server accepted it finds the connection
// closed. The log tells such a cut from a fault by what the server did,
// not by how long anything took.
type loadLog struct {
	writeTimeout time.Duration // the handler's

	mu     sync.Mutex
	opened map[string]time.Time // when the server accepted a connection, by the client's address
	active map[string]bool      // whether the server read (part of) a request from it
	errs   map[string]error     // what the handler told OnError, by loadIDHeader
	// slowCuts counts the handler's reports on requests without
	// loadIDHeader: non-readers cut by the WriteTimeout.
	slowCuts int
	pings    []ping // in the order sent
	// pingsInDumps counts the pings answered while a dump was being
	// written: sent after one of its writes began and answered before a
	// later one began.
	pingsInDumps int
}

// ping is one /ping request.
type ping struct {
	sent, answered time.Time
	inDump         bool // counted in pingsInDumps
}

func newLoadLog(writeTimeout time.Duration) *loadLog {
	return &loadLog{writeTimeout: writeTimeout, opened: map[string]time.Time{}, active: map[string]bool{}, errs: map[string]error{}}
}

// connState is the server's http.Server.ConnState.
func (l *loadLog) connState(c net.Conn, st http.ConnState) {
	addr := c.RemoteAddr().String()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateNew:
		l.opened[addr] = time.Now()
		delete(l.active, addr)
	case http.StateActive:
		l.active[addr] = true
	}
}

// onError is the handler's HandlerOptions.OnError.
func (l *loadLog) onError(r *http.Request, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := r.Header.Get(loadIDHeader)
	if id == "" {
		l.slowCuts++
		return
	}
	l.errs[id] = err
}

// pinged records a /ping answered.
func (l *loadLog) pinged(sent, answered time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pings = append(l.pings, ping{sent: sent, answered: answered})
}

// pingsAnsweredInDumps returns pingsInDumps.
func (l *loadLog) pingsAnsweredInDumps() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pingsInDumps
}

// wrap counts, as each dump of h ends, the pings answered while it was
// being written.
func (l *loadLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &dumpWriter{ResponseWriter: w}
		h.ServeHTTP(dw, r)
		if dw.status != http.StatusOK || dw.first.IsZero() {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		i, _ := slices.BinarySearchFunc(l.pings, dw.first, func(p ping, t time.Time) int { return p.sent.Compare(t) })
		for ; i < len(l.pings) && l.pings[i].sent.Before(dw.last); i++ {
			if p := &l.pings[i]; !p.inDump && p.answered.Before(dw.last) {
				p.inDump = true
				l.pingsInDumps++
			}
		}
	})
}

// dumpWriter records the status of an answer and when its first and last
// writes began.
type dumpWriter struct {
	http.ResponseWriter
	status      int
	first, last time.Time
}

func (w *dumpWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *dumpWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.last = time.Now()
	if w.first.IsZero() {
		w.first = w.last
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets the handler's http.ResponseController reach the connection
// (its write deadline), as through any middleware that wraps the writer.
func (w *dumpWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// brokenAnswer is a request that got no whole answer, judged by judge
// once the load is over.
type brokenAnswer struct {
	what         string // the query, or /ping
	id           string // its loadIDHeader
	conn         string // the client's address on the connection, "" when it got none
	sent, failed time.Time
	status       int   // 0: no answer
	bytes        int64 // of the body read before it broke
	err          error
}

// Why an answer was cut, when the service's deadlines did it.
const (
	cutByReadHeaderTimeout = "ReadHeaderTimeout"
	cutByWriteTimeout      = "WriteTimeout"
)

// judge says which of the service's deadlines cut b, or why b is a fault:
//   - no answer: the server closed the connection without reading
//     anything from it, at least ReadHeaderTimeout after accepting it (the
//     handler never ran);
//   - a body that broke: the handler reported its deadline (OnError), and
//     at least WriteTimeout passed since the request was sent.
//
// Each is a lower bound on elapsed time: load can only lengthen it.
func (l *loadLog) judge(b brokenAnswer) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	took := b.failed.Sub(b.sent)
	if b.status == 0 {
		opened, ok := l.opened[b.conn]
		if ok && !l.active[b.conn] && b.failed.Sub(opened) >= loadReadHeaderTimeout {
			return cutByReadHeaderTimeout, nil
		}
		return "", fmt.Errorf("%s: no answer after %v: %w (the server accepted the connection: %v, read from it: %v)", b.what, took.Round(time.Millisecond), b.err, ok, l.active[b.conn])
	}
	herr := l.errs[b.id]
	if (errors.Is(herr, os.ErrDeadlineExceeded) || errors.Is(herr, context.DeadlineExceeded)) && took >= l.writeTimeout {
		return cutByWriteTimeout, nil
	}
	return "", fmt.Errorf("%s: status %d, no whole answer (%d bytes read, %v after the request): %w; the handler reported %v (want its %v WriteTimeout passed)", b.what, b.status, b.bytes, took.Round(time.Millisecond), b.err, herr, l.writeTimeout)
}

// brokenAnswers collects the answers to judge.
type brokenAnswers struct {
	mu   sync.Mutex
	list []brokenAnswer
}

func (a *brokenAnswers) add(b brokenAnswer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = append(a.list, b)
}

// traceConn records the client's address of the connection a request gets.
func traceConn(ctx context.Context, b *brokenAnswer) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { b.conn = i.Conn.LocalAddr().String() },
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// heapSampler records the highest live heap seen while it runs: what the
// last collection found reachable, which unlike the heap in use holds no
// garbage, so it does not grow when a loaded machine collects later.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
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
// asked every 20 ms. The dumps keep coming (one at a time, the rest
// answered 429), every answer is a whole dump, a 429, or a cut that the
// service's own deadlines made (never a dump cut for another reason), the
// trivial handler is answered while dumps are being written, slow
// clients are cut by the deadlines, and goroutines and heap return to
// their baseline afterwards.
//
// Nothing here is timed against a bound that load could break. The
// service's WriteTimeout is sized from what a full dump takes alone on
// this machine in this run, so that whole dumps stay possible however
// loaded it is; a dump that still outlasts it, or a request that reaches
// its new connection later than ReadHeaderTimeout, is cut by the service
// as configured, and passes when the server's own record shows that
// deadline did it (loadLog.judge). The load lasts until every kind of
// answer has been read back whole once and /ping answered while a dump
// was being written (events, counted): at least duration, at most
// maxDuration.
func TestEndpointUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s of load")
	}
	cfg := loadConfigFromEnv()
	stopParked := benchGoroutines(t, cfg.goroutines)
	defer stopParked()

	// The server starts with a warm-up endpoint (the handler's defaults);
	// the endpoint under load is mounted once its WriteTimeout is known.
	mux := http.NewServeMux()
	mux.Handle("/warmup", Handler(HandlerOptions{}))
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var connLog atomic.Pointer[loadLog] // set before the load's first connection
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: loadReadHeaderTimeout, IdleTimeout: loadIdleTimeout,
		ConnState: func(c net.Conn, st http.ConnState) {
			if lg := connLog.Load(); lg != nil {
				lg.connState(c, st)
			}
		}}
	go srv.Serve(l)
	defer srv.Close()
	base := "http://" + l.Addr().String()

	// Warm up, then take the baseline: a full capture keeps its traceback
	// buffer for the next one (stackbuf.go), which belongs to the baseline.
	// The full dumps after the first are timed, asked for as the load's
	// clients ask: what one takes alone on this machine now.
	warm := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true}}
	var alone time.Duration
	for i, q := range []struct{ query, encoding string }{{"", ""}, {"?mode=grouped", ""}, {"", ""}, {"?format=json", "gzip"}} {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodGet, base+"/warmup"+q.query, nil)
		if q.encoding != "" {
			req.Header.Set("Accept-Encoding", q.encoding)
		}
		resp, err := warm.Do(req)
		if err != nil {
			t.Fatalf("warm-up: %v", err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("warm-up %s: %s, %v", q.query, resp.Status, err)
		}
		if i >= 2 {
			alone = max(alone, time.Since(start))
		}
	}
	warm.CloseIdleConnections()
	writeTimeout := max(minLoadWriteTimeout, dumpsPerWriteTimeout*alone).Round(time.Millisecond)
	record := newLoadLog(writeTimeout)
	connLog.Store(record)
	mux.Handle("/debug/stackdump", record.wrap(Handler(HandlerOptions{
		MaxWait:      loadMaxWait,
		WriteTimeout: writeTimeout,
		OnError:      record.onError,
	})))
	time.Sleep(100 * time.Millisecond)
	baseGoroutines := runtime.NumGoroutine()
	baseHeap := liveHeap()
	heap := sampleHeap()

	transport := &http.Transport{MaxIdleConnsPerHost: cfg.clients, DisableCompression: true}
	// No client timeout: the service's deadlines end every answer, and the
	// end of the load any request still waiting.
	client := &http.Client{Transport: transport}
	var (
		stats  loadStats
		broken brokenAnswers
		ids    atomic.Int64
		wg     sync.WaitGroup
	)

	// Dump clients: a mix of modes, formats and compressions, each read
	// to the end, and read back as a dump, one at a time, until one
	// answer of each kind was read back whole (grouped text is for people, so groups are
	// asked for as JSON); bounded in time and in count.
	queries := []struct{ query, encoding string }{
		{"", ""},
		{"?format=json", "gzip"},
		{"?mode=grouped&format=json", ""},
		{"?dedupe=1&format=json", "zstd"},
	}
	var readBack sync.Map // query: an answer was read back whole
	// One answer is read back at a time, so that the test's own parsed
	// dumps add at most one to the heap it measures.
	var readingBack sync.Mutex
	loadDone := func() bool {
		for _, q := range queries {
			if _, ok := readBack.Load(q.query); !ok {
				return false
			}
		}
		return record.pingsAnsweredInDumps() > 0
	}

	// The load lasts cfg.duration, and then until loadDone, up to
	// cfg.maxDuration.
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	began := time.Now()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer stopLoad()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			if took := time.Since(began); took >= cfg.maxDuration || took >= cfg.duration && loadDone() {
				return
			}
		}
	}()

	for c := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000 && ctx.Err() == nil; i++ {
				q := queries[(c+i)%len(queries)]
				b := brokenAnswer{what: q.query, id: strconv.FormatInt(ids.Add(1), 10)}
				req, _ := http.NewRequestWithContext(traceConn(ctx, &b), http.MethodGet, base+"/debug/stackdump"+q.query, nil)
				req.Header.Set(loadIDHeader, b.id)
				if q.encoding != "" {
					req.Header.Set("Accept-Encoding", q.encoding)
				}
				b.sent = time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						b.failed, b.err = time.Now(), err
						broken.add(b)
					}
					continue
				}
				body := &countingReader{r: resp.Body}
				var rerr error
				if _, done := readBack.Load(q.query); !done && resp.StatusCode == http.StatusOK && readingBack.TryLock() {
					if rerr = readBackDump(body, resp.Request.URL, cfg.goroutines); rerr == nil {
						readBack.Store(q.query, true)
					}
					readingBack.Unlock()
				}
				if rerr == nil {
					_, rerr = io.Copy(io.Discard, body)
				}
				resp.Body.Close()
				stats.bytes.Add(body.n)
				took := time.Since(b.sent)
				switch {
				case rerr != nil && ctx.Err() == nil:
					b.failed, b.status, b.bytes, b.err = time.Now(), resp.StatusCode, body.n, rerr
					broken.add(b)
				case rerr != nil: // the load ended
				case resp.StatusCode == http.StatusOK:
					stats.ok.Add(1)
				case resp.StatusCode == http.StatusTooManyRequests:
					stats.tooMany.Add(1)
					if resp.Header.Get("Retry-After") == "" {
						stats.fail(errors.New("429 without Retry-After"))
					}
				case resp.StatusCode == http.StatusServiceUnavailable:
					// The capture outlasted WriteTimeout: never sooner.
					stats.unavailable.Add(1)
					if took < writeTimeout {
						stats.fail(fmt.Errorf("%s: 503 after %v, within the %v WriteTimeout", q.query, took, writeTimeout))
					}
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

	// The service's responsiveness: a trivial handler of the same server,
	// on its own connection, every 20 ms through the load. It is not
	// starved when it is answered while a dump is being written
	// (loadLog.wrap).
	var latencies []time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		ping := &http.Client{Transport: &http.Transport{}}
		defer ping.CloseIdleConnections()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			b := brokenAnswer{what: "/ping"}
			req, _ := http.NewRequestWithContext(traceConn(ctx, &b), http.MethodGet, base+"/ping", nil)
			b.sent = time.Now()
			resp, err := ping.Do(req)
			switch {
			case err != nil && ctx.Err() == nil:
				b.failed, b.err = time.Now(), err
				broken.add(b)
			case err == nil:
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				record.pinged(b.sent, time.Now())
				latencies = append(latencies, time.Since(b.sent))
			}
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	wg.Wait()
	loadTook := time.Since(began)
	close(slowConns)
	transport.CloseIdleConnections()
	peakHeap := heap.finish()

	// Slow clients must have been cut: the server closed their
	// connections (EOF or reset) within its deadlines, even those that
	// arrived last.
	for sc := range slowConns {
		sc.conn.SetReadDeadline(time.Now().Add(loadReadHeaderTimeout + writeTimeout + loadIdleTimeout + 10*time.Second))
		_, err := io.Copy(io.Discard, sc.conn)
		sc.conn.Close()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s connection not closed by the server after %v", sc.kind, time.Since(sc.opened).Round(time.Millisecond))
		}
	}

	// Every answer that broke was cut by one of the service's deadlines.
	cuts := map[string]int{}
	var faults []error
	for _, b := range broken.list {
		if by, err := record.judge(b); err != nil {
			faults = append(faults, err)
		} else {
			cuts[by]++
		}
	}
	for _, err := range faults[:min(len(faults), 5)] {
		t.Error(err)
	}
	if len(faults) > 5 {
		t.Errorf("and %d more answers broken, not by the service's deadlines", len(faults)-5)
	}

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	t.Logf("WriteTimeout %v: a full dump took %v alone", writeTimeout, alone.Round(time.Millisecond))
	t.Logf("%d goroutines, %d clients for %v: %d dumps (%.1f MiB), %d × 429, %d × 503, %d other, %d failed; cut by the WriteTimeout %d, connections closed by the ReadHeaderTimeout %d",
		cfg.goroutines, cfg.clients, loadTook.Round(time.Millisecond), stats.ok.Load(), float64(stats.bytes.Load())/(1<<20), stats.tooMany.Load(), stats.unavailable.Load(), stats.other.Load(), stats.failed.Load(), cuts[cutByWriteTimeout], cuts[cutByReadHeaderTimeout])
	t.Logf("/ping over %d requests, %d of them while a dump was being written: p50 %v, p99 %v, max %v", len(latencies), record.pingsAnsweredInDumps(), pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	record.mu.Lock()
	t.Logf("non-readers that held the dump lock until the WriteTimeout: %d", record.slowCuts)
	record.mu.Unlock()
	t.Logf("heap: %.0f MiB live before, at most %.0f MiB live during the load", float64(baseHeap)/(1<<20), float64(peakHeap)/(1<<20))
	if e := stats.firstErr.Load(); e != nil {
		t.Errorf("%d requests failed; first: %s", stats.failed.Load(), e)
	}
	for _, q := range queries {
		if _, ok := readBack.Load(q.query); !ok {
			t.Errorf("%q: no answer read back whole in %v of load (%d dumps, %d cut by the %v WriteTimeout, %d × 503)", q.query, loadTook.Round(time.Millisecond), stats.ok.Load(), cuts[cutByWriteTimeout], writeTimeout, stats.unavailable.Load())
		}
	}
	if stats.tooMany.Load() == 0 {
		t.Errorf("%d dumps and no 429: want both under this load", stats.ok.Load())
	}
	if record.pingsAnsweredInDumps() == 0 {
		t.Errorf("/ping never answered while a dump was being written (%d answers in %v): the service stops answering during dumps", len(latencies), loadTook.Round(time.Millisecond))
	}
	// One dump is held at a time however many clients ask: the live heap
	// grows by one dump, its encoders and this test's read-back (up to
	// 55 MiB here), not by a dump per client (200 × 21 MiB).
	if peakHeap > baseHeap+128<<20 {
		t.Errorf("%d MiB live during the load, %d MiB before", peakHeap>>20, baseHeap>>20)
	}

	// Everything returns to the baseline: goroutines at once or nearly
	// (connections winding down; the server closes an idle one after
	// IdleTimeout), heap after a collection.
	deadline := time.Now().Add(loadIdleTimeout + 10*time.Second)
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

// readBackDump reads an answer to u back as a dump and checks that it
// holds at least n goroutines.
func readBackDump(body io.Reader, u *url.URL, n int) error {
	dumps, err := formats.ReadAll(bufio.NewReader(body), formats.ReadOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	if len(dumps) != 1 {
		return fmt.Errorf("%s: %d dumps, want 1", u, len(dumps))
	}
	if dumps[0].Total < int64(n) {
		return fmt.Errorf("%s: a dump of %d goroutines, want at least %d", u, dumps[0].Total, n)
	}
	if !strings.Contains(u.RawQuery, "mode=grouped") && len(dumps[0].Routines) == 0 {
		return fmt.Errorf("%s: no routines", u)
	}
	return nil
}
