package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/leakcheck"
)

// blockChildEnv makes the test binary a child that prints "ready" and
// blocks until killed: a plain Go process for tests that must not harm it.
const blockChildEnv = "REMOTE_TEST_BLOCK_CHILD"

// checkJVMChildEnv makes the test binary a child that runs checkJVM on the
// pid it holds, prints the error and whether it is ErrNotJVM, and exits.
const checkJVMChildEnv = "REMOTE_TEST_CHECK_JVM"

func TestMain(m *testing.M) {
	if os.Getenv(blockChildEnv) == "1" {
		fmt.Println("ready")
		select {}
	}
	if pid := os.Getenv(checkJVMChildEnv); pid != "" {
		n, _ := strconv.Atoi(pid)
		err := checkJVM(n)
		fmt.Printf("%v\nErrNotJVM=%v\n", err, errors.Is(err, ErrNotJVM))
		os.Exit(0)
	}
	leakcheck.VerifyTestMain(m)
}

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in, endpoint string
		kind         TargetKind
		url, addr    string
		pid          int
		discover     bool
		err          string
	}{
		{in: "http://127.0.0.1:6060", kind: TargetPprof, url: "http://127.0.0.1:6060/debug/pprof/goroutine", discover: true},
		{in: "127.0.0.1:6060", kind: TargetPprof, url: "http://127.0.0.1:6060/debug/pprof/goroutine", discover: true},
		{in: "http://h:1/debug/pprof/goroutine?debug=1", kind: TargetPprof, url: "http://h:1/debug/pprof/goroutine?debug=1"},
		{in: "https://h:1/", endpoint: "/debug/stackdump", kind: TargetEndpoint, url: "https://h:1/debug/stackdump"},
		{in: "http://h:1/x/dump", endpoint: "/x/dump", kind: TargetEndpoint, url: "http://h:1/x/dump"},
		{in: "http://h:1/debug/stackdump", kind: TargetEndpoint, url: "http://h:1/debug/stackdump"},
		{in: "h:1/debug/stackdump?mode=full#top", kind: TargetEndpoint, url: "http://h:1/debug/stackdump?mode=full"},
		{in: "http://h:1/debug/stackdump", endpoint: "/x/dump", kind: TargetPprof, url: "http://h:1/debug/stackdump"},
		{in: "http://h:1/admin/pprof/goroutine", kind: TargetPprof, url: "http://h:1/admin/pprof/goroutine"},
		{in: "http://h:1/heap", kind: TargetPprof, url: "http://h:1/heap"},
		{in: "http://h:1/debug/pprof/", kind: TargetPprof, url: "http://h:1/debug/pprof/goroutine"},
		{in: "h:1/admin/pprof", kind: TargetPprof, url: "http://h:1/admin/pprof/goroutine"},
		{in: "http://h:1/debug/pprof/heap", err: "/debug/pprof/heap is the heap profile, not a goroutine dump; give the goroutine profile's URL (/debug/pprof/goroutine)"},
		{in: "http://h:1/debug/pprof/profile?seconds=30", err: "the CPU profile"},
		{in: "http://h:1/admin/pprof/goroutineleak", err: "(/admin/pprof/goroutine)"},
		{in: "http://h:1/debug/pprof/threadcreate/", err: "thread creation profile"},
		{in: "gops://127.0.0.1:4321", kind: TargetGops, addr: "127.0.0.1:4321"},
		{in: "jvm:4242", kind: TargetJVM, pid: 4242},
		{in: "jvm:x", err: "jvm:PID"},
		{in: "gops://nohost", err: "gops://host:port or gops://PID"},
		{in: "gops://4242", kind: TargetGops, pid: 4242},
		{in: "ftp://h:1/", err: "unsupported scheme"},
		{in: "just-a-name", err: "want a URL"},
	}
	for _, tt := range tests {
		got, err := ParseTarget(tt.in, tt.endpoint)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseTarget(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", tt.in, err)
			continue
		}
		if got.Kind != tt.kind || got.Addr != tt.addr || got.PID != tt.pid || got.Discover != tt.discover {
			t.Errorf("ParseTarget(%q) = %+v", tt.in, got)
		}
		if tt.url != "" && got.URL.String() != tt.url {
			t.Errorf("ParseTarget(%q).URL = %s, want %s", tt.in, got.URL, tt.url)
		}
	}
}

// parkedInRemoteTest blocks n goroutines in a function the tests look for.
func parkedInRemoteTest(t *testing.T, n int) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			blockedInRemoteTest(stop)
		}()
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
}

//go:noinline
func blockedInRemoteTest(stop chan struct{}) { <-stop }

func pprofServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func readStream(t *testing.T, s *Stream) []byte {
	t.Helper()
	defer s.Close()
	b, err := io.ReadAll(s)
	if err != nil {
		t.Fatalf("reading %s: %v", s.URL, err)
	}
	return b
}

func TestOpenPprofFull(t *testing.T) {
	parkedInRemoteTest(t, 40)
	srv := pprofServer(t)
	tg, err := ParseTarget(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int64
	s, err := Open(context.Background(), tg, Options{Progress: func(n int64) { progress.Store(n) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.URL, "debug=2") {
		t.Errorf("fell back to %s, want the pprof debug=2 URL", s.URL)
	}
	body := readStream(t, s)
	if n := bytes.Count(body, []byte("remote.blockedInRemoteTest(")); n != 40 {
		t.Errorf("dump has %d goroutines in blockedInRemoteTest, want 40", n)
	}
	if progress.Load() != int64(len(body)) {
		t.Errorf("progress reported %d bytes, body is %d", progress.Load(), len(body))
	}
}

func TestOpenPprofGrouped(t *testing.T) {
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	s, err := Open(context.Background(), tg, Options{Mode: ModeGrouped})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	if !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("grouped mode body starts %q, want a gzipped protobuf", body[:min(8, len(body))])
	}
}

func TestRetries(t *testing.T) {
	for _, tt := range []struct {
		status, failures int
		wantCalls        int32
		wantErr          bool
	}{
		{status: 503, failures: 2, wantCalls: 3},
		{status: 500, failures: 5, wantCalls: 3, wantErr: true},
		{status: 404, failures: 1, wantCalls: 1, wantErr: true},
		{status: 403, failures: 1, wantCalls: 1, wantErr: true},
	} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= int32(tt.failures) {
				http.Error(w, "not now", tt.status)
				return
			}
			io.WriteString(w, "goroutine 1 [running]:\nmain.main()\n\t/x.go:1 +0x1\n")
		}))
		tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
		s, err := Open(context.Background(), tg, Options{Backoff: time.Millisecond})
		if err == nil {
			readStream(t, s)
		}
		srv.Close()
		if (err != nil) != tt.wantErr || calls.Load() != tt.wantCalls {
			t.Errorf("status %d ×%d: err=%v calls=%d, want err=%v calls=%d", tt.status, tt.failures, err, calls.Load(), tt.wantErr, tt.wantCalls)
		}
		var he *HTTPError
		if tt.wantErr && !errors.As(err, &he) {
			t.Errorf("status %d: error %v is not an *HTTPError", tt.status, err)
		}
	}
}

func TestConnectionRefusedIsRetriedThenReported(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tg, _ := ParseTarget(addr, "")
	start := time.Now()
	_, err = Open(context.Background(), tg, Options{Backoff: 5 * time.Millisecond, Retries: 2})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want connection refused", err)
	}
	if time.Since(start) < 15*time.Millisecond {
		t.Errorf("returned before the two backoffs (5ms + 10ms) elapsed")
	}
}

func TestHTMLIsNotADump(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html>login</html>")
	}))
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	_, err := Open(context.Background(), tg, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a dump") {
		t.Fatalf("err = %v, want 'not a dump'", err)
	}
}

func TestMaxBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 1<<20))
	}))
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/d", "")
	for _, tt := range []struct {
		limit int64
		want  error
	}{{1000, ErrTooLarge}, {1 << 20, nil}} {
		s, err := Open(context.Background(), tg, Options{MaxBytes: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(s)
		s.Close()
		if !errors.Is(err, tt.want) {
			t.Errorf("limit %d: err = %v, want %v", tt.limit, err, tt.want)
		}
	}
}

// TestDocumentMaxBytes: a document whose body passed Options.MaxBytes
// fails on Close with ErrTooLarge, naming the option, however much of it
// the reader kept.
func TestDocumentMaxBytes(t *testing.T) {
	parkedInRemoteTest(t, 50)
	tg, _ := ParseTarget(pprofServer(t).URL+"/debug/pprof/goroutine", "")
	doc, err := OpenDocument(context.Background(), tg, Options{Mode: ModeTrace, MaxBytes: 2000}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := doc.Next(); err == nil; _, err = doc.Next() {
		for range doc.Routines() {
		}
	}
	if err := doc.Close(); !errors.Is(err, ErrTooLarge) || !strings.HasSuffix(err.Error(), "exceeds the size limit (Options.MaxBytes)") {
		t.Errorf("Close: %v, want ErrTooLarge naming Options.MaxBytes", err)
	}
}

func TestEndpointDiscovery(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	endpoint := dumper.Handler(dumper.HandlerOptions{})
	mux.HandleFunc(DefaultEndpointPath, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.String())
		mu.Unlock()
		endpoint.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL, "")
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, s)
	if len(body) == 0 || !s.fromEndpoint || len(paths) != 1 || !strings.Contains(paths[0], "format=json") {
		t.Errorf("discovery fetched %v, %d bytes (from the endpoint: %v)", paths, len(body), s.fromEndpoint)
	}
}

// A host:port target with neither the endpoint nor net/http/pprof fails
// naming the address, both paths tried with their answers, and what to do,
// without the probe's internal query.
func TestEndpointDiscoveryErrorNamesURLs(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	tg, err := ParseTarget(strings.TrimPrefix(srv.URL, "http://"), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), tg, Options{})
	if err == nil {
		t.Fatal("no error from a server that has no dump")
	}
	msg := err.Error()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, want := range []string{host + " serves HTTP, but no goroutine dump", DefaultEndpointPath + ": 404 Not Found", DefaultPprofPath + ": 404 Not Found", `import _ "net/http/pprof"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "format=") {
		t.Errorf("error %q shows the probe's internal URL", msg)
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound {
		t.Errorf("error %q does not wrap the 404", msg)
	}
}

func TestCloseMidBodyReleasesEverything(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("goroutine 1 [running]:\n"), 1000))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	tg, _ := ParseTarget(srv.URL+"/d", "")
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(s, buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a stalled body")
	}
}

// TestTargetStringRedactsPassword: a target names itself (messages, the
// dump's Source.Target) with its password replaced, however it was
// written; Raw keeps it for the request.
func TestTargetStringRedactsPassword(t *testing.T) {
	for _, in := range []string{"ftp://u:pw@h:1/", "http://u:pw@h:1/debug/pprof/heap"} {
		if _, err := ParseTarget(in, ""); err == nil || strings.Contains(err.Error(), "pw@") || !strings.Contains(err.Error(), "u:xxxxx@h:1") {
			t.Errorf("ParseTarget(%q): err = %v, want an error naming the target without its password", in, err)
		}
	}
	checkTargetStrings(t, map[string]string{
		"http://u:pw@h:1/":                     "http://u:xxxxx@h:1/",
		"https://u:p%40ss@h:1/debug/stackdump": "https://u:xxxxx@h:1/debug/stackdump",
		"http://u:p@ss@h:1":                    "http://u:xxxxx@h:1",
		"http://u@h:1":                         "http://u@h:1",
		"http://h:1/x?a=b":                     "http://h:1/x?a=b",
	})
}
