package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingProxy forwards to a target and records what it was asked for.
type countingProxy struct {
	srv   *httptest.Server
	mu    sync.Mutex
	asked []string
}

// startCountingProxy starts a reverse proxy to addr on 127.0.0.1.
func startCountingProxy(t *testing.T, addr string) *countingProxy {
	t.Helper()
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	transport := &http.Transport{}
	rp.Transport = transport
	p := &countingProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.asked = append(p.asked, r.URL.RequestURI())
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.srv.Close(); transport.CloseIdleConnections() })
	return p
}

// take returns what the proxy was asked since the last take.
func (p *countingProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	asked := p.asked
	p.asked = nil
	return asked
}

// askedFor reports whether one of asked contains s.
func askedFor(asked []string, s string) bool {
	return strings.Contains(strings.Join(asked, " "), s)
}

// leakedIn captures target in full mode and counts the goroutines marked
// leaked: a leak-detection cycle that ran in the target leaves its marks.
func leakedIn(t *testing.T, target string) int {
	t.Helper()
	out := filepath.Join(t.TempDir(), "full.json")
	if _, stderr, err := runCLI(t, "capture", "-q", target, "-o", out); err != nil {
		t.Fatalf("full capture of %s: %v\n%s", target, err, stderr)
	}
	n := 0
	for _, r := range readDumpFile(t, out)[0].Routines {
		if r.Leaked {
			n++
		}
	}
	return n
}

// TestCaptureLeakModeBound captures a child built with Go 1.27.3 (6 leaked
// goroutines, 4 parked, an HTTP server: more than 5) through a proxy that
// records its requests. With --leak-max-goroutines 5, the net/http/pprof
// capture fetches debug=1, is refused naming the count, the bound and the
// flag, and never requests goroutineleak. Through stackdump's endpoint,
// whose owner set a bound of 5, --leak-max-goroutines 0 does not help: the
// endpoint answers 403 naming its option, and the bare address does not
// fall back to goroutineleak. No leak cycle ran: a full capture marks
// nothing leaked. Then --leak-max-goroutines 0 through net/http/pprof
// requests goroutineleak, proves the 6 leaked, and the marks stay.
func TestCaptureLeakModeBound(t *testing.T) {
	addr := startLeakTarget(t, buildLeakTarget(t, "go1.27.3"), "-leaked", "6", "-parked", "4", "-leak-max-goroutines", "5")
	proxy := startCountingProxy(t, addr)
	pprofURL := proxy.srv.URL + "/debug/pprof/goroutine"
	out := filepath.Join(t.TempDir(), "leak.json")

	_, stderr, err := runCLI(t, "capture", "-q", "--mode", "leak", "--leak-max-goroutines", "5", pprofURL, "-o", out)
	asked := proxy.take()
	if err == nil || !strings.Contains(stderr, "leak mode refused") || !strings.Contains(stderr, "more than the bound of 5") || !strings.Contains(stderr, "--leak-max-goroutines") {
		t.Errorf("leak capture above the bound: err = %v, stderr %q; want a refusal naming the bound and the flag", err, stderr)
	}
	if askedFor(asked, "goroutineleak") || !askedFor(asked, "/debug/pprof/goroutine?debug=1") {
		t.Errorf("refused leak capture asked the target %v; want debug=1 and no goroutineleak", asked)
	}

	bare := strings.TrimPrefix(proxy.srv.URL, "http://")
	for _, target := range []string{proxy.srv.URL + "/debug/stackdump", bare} {
		_, stderr, err = runCLI(t, "capture", "-q", "--mode", "leak", "--leak-max-goroutines", "0", "--endpoint", "/debug/stackdump", target, "-o", out)
		asked = proxy.take()
		if err == nil || !strings.Contains(stderr, "403") || !strings.Contains(stderr, "bound of 5") || !strings.Contains(stderr, "HandlerOptions.Capture.LeakMaxGoroutines") {
			t.Errorf("%s: leak capture through the endpoint above its bound: err = %v, stderr %q; want its 403", target, err, stderr)
		}
		if askedFor(asked, "goroutineleak") || !askedFor(asked, "mode=leak") {
			t.Errorf("%s: refused endpoint leak capture asked the target %v; want mode=leak only", target, asked)
		}
	}
	if n := leakedIn(t, pprofURL); n != 0 {
		t.Errorf("%d goroutines marked leaked after refused leak captures: a leak cycle ran", n)
	}
	proxy.take() // the full capture's

	if _, stderr, err := runCLI(t, "capture", "-q", "--mode", "leak", "--leak-max-goroutines", "0", pprofURL, "-o", out); err != nil {
		t.Fatalf("leak capture without a bound: %v\n%s", err, stderr)
	}
	if asked := proxy.take(); !askedFor(asked, "/debug/pprof/goroutineleak?debug=2") || askedFor(asked, "debug=1") {
		t.Errorf("leak capture without a bound asked %v; want goroutineleak and no count", asked)
	}
	leaked := 0
	for _, r := range readDumpFile(t, out)[0].Routines {
		if r.Leaked {
			leaked++
		}
	}
	if leaked != 6 {
		t.Errorf("leak capture without a bound marks %d leaked, want 6", leaked)
	}
	if n := leakedIn(t, pprofURL); n != 6 {
		t.Errorf("a full capture after a leak cycle marks %d leaked, want 6 (the marks are this test's proof that none ran before)", n)
	}
}
