package dumper

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// rawClient does not decompress, so tests see the body as sent.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// get fetches url with the given header name, value pairs.
func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	resp, body, err := fetch(url, header...)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// fetch is get for goroutines other than the test's.
func fetch(url string, header ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	return resp, body, nil
}

func newDumpServer(t *testing.T, opts HandlerOptions) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/debug/stackdump", Handler(opts))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		rawClient.CloseIdleConnections()
	})
	return srv
}

// readDump reads a response body (compressed or not) into one dump.
func readDump(t *testing.T, body []byte) *stack.Dump {
	t.Helper()
	dumps, err := formats.ReadAll(strings.NewReader(string(body)), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	if len(dumps) != 1 {
		t.Fatalf("response holds %d dumps, want 1", len(dumps))
	}
	return dumps[0]
}

// fixtureSummary renders the fixture routines of d in a stable form, to
// compare dumps served in different encodings.
func fixtureSummary(d *stack.Dump) string {
	var lines []string
	for fn, rs := range fixtureRoutines(d) {
		i := slices.IndexFunc(fixtureKinds, func(k fixtureKind) bool { return k.fn == fn })
		for _, r := range rs {
			if i >= 0 && len(fixtureKinds[i].states) > 1 {
				// A goroutine that may be caught awake (the sleeper):
				// its state and stack differ from one capture to the next.
				lines = append(lines, fmt.Sprintf("%s id=%d labels=%v", fn, r.ID, r.Labels))
				continue
			}
			var frames []string
			for _, f := range r.Frames() {
				frames = append(frames, fmt.Sprintf("%s:%d", f.Func, f.Line))
			}
			lines = append(lines, fmt.Sprintf("%s id=%d state=%s labels=%v %s", fn, r.ID, r.State, r.Labels, strings.Join(frames, ";")))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func TestHandlerFormatsAndEncodings(t *testing.T) {
	f := startFixture(t, 20)
	srv := newDumpServer(t, HandlerOptions{})
	url := srv.URL + "/debug/stackdump"

	resp, body := get(t, url+"?format=json")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Content-Type":           "application/json",
		"Vary":                   "Accept-Encoding",
		"X-Content-Type-Options": "nosniff",
		"X-Stackdump-Mode":       "full",
		"Content-Encoding":       "",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `inline; filename="goroutines-`) || !strings.HasSuffix(cd, `.json"`) {
		t.Errorf("Content-Disposition = %q", cd)
	}
	plain := readDump(t, body)
	checkFullFixture(t, plain, f, runtimeGo126)
	want := fixtureSummary(plain)

	for _, tc := range []struct {
		accept, query, wantEncoding string
		wantComp                    output.Compression
	}{
		{accept: "gzip", wantEncoding: "gzip", wantComp: output.Gzip},
		{accept: "zstd", wantEncoding: "zstd", wantComp: output.Zstd},
		{accept: "gzip, zstd;q=0", wantEncoding: "gzip", wantComp: output.Gzip},
		{accept: "gzip;q=0", wantEncoding: "", wantComp: output.None},
		{accept: "*", wantEncoding: "zstd", wantComp: output.Zstd},
		{accept: "gzip", query: "&compress=zstd", wantEncoding: "zstd", wantComp: output.Zstd},
		{accept: "zstd", query: "&compress=none", wantEncoding: "", wantComp: output.None},
	} {
		resp, body := get(t, url+"?format=json"+tc.query, "Accept-Encoding", tc.accept)
		if resp.StatusCode != 200 {
			t.Fatalf("Accept-Encoding %q%s: status %d: %s", tc.accept, tc.query, resp.StatusCode, body)
		}
		if got := resp.Header.Get("Content-Encoding"); got != tc.wantEncoding {
			t.Errorf("Accept-Encoding %q%s: Content-Encoding %q, want %q", tc.accept, tc.query, got, tc.wantEncoding)
		}
		rd := formats.NewReader(strings.NewReader(string(body)), formats.ReadOptions{})
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		if rd.Compression() != tc.wantComp {
			t.Errorf("Accept-Encoding %q%s: body compressed with %s, want %s", tc.accept, tc.query, rd.Compression(), tc.wantComp)
		}
		if got := fixtureSummary(readDump(t, body)); got != want {
			t.Errorf("Accept-Encoding %q%s: the dump differs from the uncompressed one", tc.accept, tc.query)
		}
	}

	resp, body = get(t, url+"?format=text")
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("text Content-Type %q", ct)
	}
	if got := fixtureSummary(readDump(t, body)); got != want {
		t.Error("the text dump differs from the JSON one")
	}

	resp, body = get(t, url+"?format=pprof&mode=grouped")
	if resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
		t.Errorf("pprof headers %v", resp.Header)
	}
	if resp.Header.Get("X-Stackdump-Missing") == "" {
		t.Error("grouped response does not say what it lacks")
	}
	var n int64
	for _, r := range fixtureRoutines(readDump(t, body))["parkedRecv"] {
		n += r.Count
	}
	if n != 20 {
		t.Errorf("grouped pprof response counts %d parkedRecv goroutines, want 20", n)
	}

	req, _ := http.NewRequest(http.MethodHead, url, nil)
	hresp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hresp.Body.Close()
	if hresp.StatusCode != 200 || hresp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || hresp.Header.Get("X-Stackdump-Mode") != "" {
		t.Errorf("HEAD: %d %v, want text headers and no capture", hresp.StatusCode, hresp.Header)
	}
}

func TestHandlerBadRequests(t *testing.T) {
	srv := newDumpServer(t, HandlerOptions{})
	url := srv.URL + "/debug/stackdump"
	for _, tc := range []struct {
		query string
		want  []string // in the message
	}{
		{"format=xml", []string{"format", "xml", "text", "json", "pprof", "debug1"}},
		{"mode=fast", []string{"mode", "full", "grouped", "trace"}},
		{"compress=brotli", []string{"compress", "gzip", "zstd", "none"}},
		{"dedupe=maybe", []string{"dedupe", "1"}},
		{"dedupe=1&format=pprof", []string{"dedupe", "text", "json", "debug1"}},
		{"fromat=json", []string{"fromat", "format", "mode"}},
		{"format=json&format=text", []string{"format", "2 times"}},
		{"mode=trace&window=1h", []string{"window", "at most 10s"}},
		{"mode=trace&window=soon", []string{"window", "250ms"}},
		{"window=1s", []string{"window", "mode=trace"}},
	} {
		resp, body := get(t, url+"?"+tc.query)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400", tc.query, resp.StatusCode)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("?%s: message %q does not mention %q", tc.query, body, w)
			}
		}
	}
	resp, err := rawClient.Post(url, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
		t.Errorf("POST: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestHandlerAuthorize(t *testing.T) {
	srv := newDumpServer(t, HandlerOptions{Authorize: func(r *http.Request) bool {
		return r.Header.Get("Authorization") == "Bearer secret"
	}})
	url := srv.URL + "/debug/stackdump"
	if resp, _ := get(t, url); resp.StatusCode != http.StatusForbidden {
		t.Errorf("no credentials: status %d, want 403", resp.StatusCode)
	}
	if resp, _ := get(t, url, "Authorization", "Bearer wrong"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong credentials: status %d, want 403", resp.StatusCode)
	}
	if resp, body := get(t, url, "Authorization", "Bearer secret"); resp.StatusCode != 200 || len(body) == 0 {
		t.Errorf("right credentials: status %d, %d bytes", resp.StatusCode, len(body))
	}
}

func TestHandlerMinInterval(t *testing.T) {
	srv := newDumpServer(t, HandlerOptions{MinInterval: time.Hour})
	url := srv.URL + "/debug/stackdump"
	if resp, body := get(t, url); resp.StatusCode != 200 {
		t.Fatalf("first full capture: %d %s", resp.StatusCode, body)
	}
	resp, body := get(t, url)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second full capture: %d, want 429", resp.StatusCode)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "3600" && ra != "3599" {
		t.Errorf("Retry-After %q, want about an hour", ra)
	}
	if !strings.Contains(string(body), "grouped") {
		t.Errorf("429 message %q does not point to mode=grouped", body)
	}
	if resp, body := get(t, url+"?mode=grouped"); resp.StatusCode != 200 {
		t.Errorf("grouped capture inside MinInterval: %d %s", resp.StatusCode, body)
	}
}

// TestHandlerStalledClient holds the capture lock with a real TCP client
// that reads the status line of a large response and then stops reading.
// While it holds the lock, concurrent requests get 429 with Retry-After:
// all three answers arrive before OnError reports the stalled write's end
// (the handler reports it before it releases the lock), so none of them
// queued behind it. The test then ends the stall itself, and the next
// request is served. A second stalled client is cut by WriteTimeout: the
// write fails with a timeout, the lock is released and the next request
// is served.
func TestHandlerStalledClient(t *testing.T) {
	stopDeep := startDeepGoroutines(t, 2000, 60) // about 15 MB of traceback text
	defer stopDeep()

	// Held: the write deadline is far enough that only the test ends the
	// stall, however loaded the machine; a handler that queued the
	// concurrent requests instead of answering 429 would answer none of
	// them before it.
	errs := make(chan error, 4)
	srv := newDumpServer(t, HandlerOptions{
		MaxWait:      50 * time.Millisecond,
		WriteTimeout: 20 * time.Second,
		OnError:      func(_ *http.Request, err error) { errs <- err },
	})
	conn := stallClient(t, srv.Listener.Addr().String())
	answers := make(chan error, 3)
	for range 3 {
		go func() {
			resp, body, err := fetch(srv.URL + "/debug/stackdump?mode=grouped")
			switch {
			case err != nil:
			case resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "":
				err = fmt.Errorf("concurrent request: %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
			answers <- err
		}()
	}
	for range 3 {
		select {
		case err := <-answers:
			if err != nil {
				t.Error(err)
			}
		case err := <-errs:
			t.Fatalf("the stalled write ended (%v) before the concurrent requests were answered: they waited for the lock instead of getting 429", err)
		}
	}
	conn.Close()
	if err := <-errs; err == nil {
		t.Error("the stalled write ended without an error")
	}
	if resp, body := get(t, srv.URL+"/debug/stackdump?mode=grouped"); resp.StatusCode != 200 {
		t.Errorf("request after the stalled client went away: %d %s", resp.StatusCode, body)
	}

	// Cut: a stalled client that stays is cut by the write deadline.
	const writeTimeout = 2 * time.Second
	srv = newDumpServer(t, HandlerOptions{
		MaxWait:      50 * time.Millisecond,
		WriteTimeout: writeTimeout,
		OnError:      func(_ *http.Request, err error) { errs <- err },
	})
	defer stallClient(t, srv.Listener.Addr().String()).Close()
	select {
	case err := <-errs:
		if !isTimeout(err) {
			t.Errorf("stalled write ended with %v, want a timeout", err)
		}
	case <-time.After(writeTimeout + 10*time.Second):
		t.Fatal("the stalled response was not cut by the write deadline")
	}
	if resp, body := get(t, srv.URL+"/debug/stackdump?mode=grouped"); resp.StatusCode != 200 {
		t.Errorf("request after the deadline: %d %s", resp.StatusCode, body)
	}
}

// stallClient requests a full text dump from the endpoint at addr over a
// connection with a 4 KiB receive buffer, reads its status line (200) and
// reads no more: the handler's write stalls, holding the capture lock.
func stallClient(t *testing.T, addr string) net.Conn {
	t.Helper()
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	conn, err := dialer.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /debug/stackdump?format=text HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	status, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	if err != nil || !strings.Contains(status, "200") {
		conn.Close()
		t.Fatalf("stalled client: status line %q, %v", status, err)
	}
	return conn
}

func isTimeout(err error) bool {
	var ne net.Error
	for e := err; e != nil; {
		if n, ok := e.(net.Error); ok {
			ne = n
			break
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return (ne != nil && ne.Timeout()) || strings.Contains(fmt.Sprint(err), "timeout") || strings.Contains(fmt.Sprint(err), "deadline")
}

// TestHandlerWaitsForLock checks that a request arriving during another
// one's capture waits for it (within MaxWait) instead of failing.
func TestHandlerWaitsForLock(t *testing.T) {
	startFixture(t, 50)
	srv := newDumpServer(t, HandlerOptions{MaxWait: 30 * time.Second})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, body, err := fetch(srv.URL + "/debug/stackdump"); err != nil || resp.StatusCode != 200 {
				t.Errorf("concurrent request with a long MaxWait: %v %v %s", err, resp, body)
			}
		}()
	}
	wg.Wait()
}

func TestNegotiateEncoding(t *testing.T) {
	for _, tc := range []struct {
		headers []string
		want    output.Compression
	}{
		{nil, output.None},
		{[]string{"identity"}, output.None},
		{[]string{"gzip, deflate, br"}, output.Gzip},
		{[]string{"gzip, deflate, br, zstd"}, output.Zstd},
		{[]string{"gzip;q=1.0, zstd;q=0.5"}, output.Gzip},
		{[]string{"zstd;q=0, gzip;q=0.1"}, output.Gzip},
		{[]string{"GZIP;Q=0"}, output.None},
		{[]string{"*;q=0.5", "gzip;q=0.9"}, output.Gzip},
		{[]string{"*;q=0"}, output.None},
		{[]string{"x-gzip"}, output.Gzip},
		{[]string{"gzip;q=abc"}, output.None},
	} {
		if got := negotiateEncoding(tc.headers); got != tc.want {
			t.Errorf("negotiateEncoding(%q) = %s, want %s", tc.headers, got, tc.want)
		}
	}
}

// startDeepGoroutines parks n goroutines depth frames deep.
func startDeepGoroutines(t testing.TB, n, depth int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deepPark(depth, done)
		}()
	}
	waitDeepParked(t, n)
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

//go:noinline
func deepPark(depth int, done chan struct{}) {
	if depth > 0 {
		deepPark(depth-1, done)
		return
	}
	<-done
}

// waitDeepParked waits until n deepPark goroutines are parked, judged from
// the raw traceback text (not through the code under test).
func waitDeepParked(t testing.TB, n int) {
	buf := make([]byte, 256<<20)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		text := string(buf[:runtime.Stack(buf, true)])
		parked := 0
		for _, rec := range strings.Split(text, "\n\n") {
			head, _, _ := strings.Cut(rec, "\n")
			if strings.Contains(head, "[chan receive") && strings.Contains(rec, "dumper.deepPark") {
				parked++
			}
		}
		if parked >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("deep goroutines did not park")
}

// TestHandlerCaptureTimeout gives the handler less time than a capture
// takes: the client gets 503 naming WriteTimeout, not an empty 200.
func TestHandlerCaptureTimeout(t *testing.T) {
	srv := newDumpServer(t, HandlerOptions{WriteTimeout: time.Microsecond})
	resp, body := get(t, srv.URL+"/debug/stackdump?format=json")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "WriteTimeout") {
		t.Errorf("capture past WriteTimeout: %d %q, want 503 naming WriteTimeout", resp.StatusCode, body)
	}
}
