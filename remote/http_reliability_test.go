package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// faultGoroutines is how many goroutines faultDump holds.
const faultGoroutines = 2000

// faultDump is a debug=2 body of faultGoroutines goroutines (about 250 KiB).
var faultDump = func() []byte {
	var b []byte
	for id := 1; id <= faultGoroutines; id++ {
		b = fmt.Appendf(b, "goroutine %d [chan receive]:\nmain.worker(0xc000%06x)\n\t/app/worker.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/app/main.go:30 +0x45\n\n", id, id)
	}
	return b
}()

// faultServer is a server on 127.0.0.1 whose paths misbehave in every
// way a capture meets, counting the requests each path gets.
type faultServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

// The fault paths; each answers as its name says.
const (
	pathGood          = "/good"
	pathRedirect      = "/redirect"     // 302 to /good
	pathRedirectLoop  = "/loop"         // 302 to itself
	pathResetMidBody  = "/reset-body"   // half the body, then a TCP reset
	pathResetAtOnce   = "/reset-now"    // a TCP reset before any answer
	pathStallHeaders  = "/stall-header" // never answers
	pathStallBody     = "/stall-body"   // some of the body, then nothing
	pathServerError   = "/500"
	pathHTML          = "/html"         // a login page, labelled text/html
	pathHTMLUnlabeled = "/html-as-text" // the same page labelled text/plain
)

func newFaultServer(t *testing.T) *faultServer {
	fs := &faultServer{calls: map[string]int{}}
	mux := http.NewServeMux()
	handle := func(path string, h http.HandlerFunc) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			fs.mu.Lock()
			fs.calls[path]++
			fs.mu.Unlock()
			h(w, r)
		})
	}
	handle(pathGood, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(faultDump)
	})
	handle(pathRedirect, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, pathGood+"?"+r.URL.RawQuery, http.StatusFound)
	})
	handle(pathRedirectLoop, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, pathRedirectLoop+"?"+r.URL.RawQuery, http.StatusFound)
	})
	handle(pathResetMidBody, func(w http.ResponseWriter, r *http.Request) {
		conn, buf := hijack(t, w)
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(faultDump))
		buf.Write(faultDump[:len(faultDump)/2])
		buf.Flush()
		time.Sleep(20 * time.Millisecond) // let the client take the bytes
		reset(conn)
	})
	handle(pathResetAtOnce, func(w http.ResponseWriter, r *http.Request) {
		conn, _ := hijack(t, w)
		reset(conn)
	})
	handle(pathStallHeaders, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	handle(pathStallBody, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(faultDump[:len(faultDump)/4])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	handle(pathServerError, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "runtime error: invalid memory address", http.StatusInternalServerError)
	})
	page := "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form>user <input name=u></form></body></html>\n"
	handle(pathHTML, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
	handle(pathHTMLUnlabeled, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, page)
	})
	fs.Server = httptest.NewServer(mux)
	t.Cleanup(fs.Close)
	return fs
}

func (fs *faultServer) callsTo(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.calls[path]
}

func hijack(t *testing.T, w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
	}
	return conn, buf
}

// reset closes conn with a TCP RST rather than a FIN.
func reset(conn net.Conn) {
	conn.(*net.TCPConn).SetLinger(0)
	conn.Close()
}

// faultOutcome is what capturing one fault path gave.
type faultOutcome struct {
	openErr  error // from Open
	readErr  error // from reading the stream through formats
	dumps    int
	routines int
	cut      bool // the dump was marked truncated
	elapsed  time.Duration
}

// captureFault opens path on fs and reads it as the capture command does.
func captureFault(fs *faultServer, path string, opts Options) (o faultOutcome) {
	start := time.Now()
	defer func() { o.elapsed = time.Since(start) }()
	tg, err := ParseTarget(fs.URL+path, "")
	if err != nil {
		o.openErr = err
		return o
	}
	s, err := Open(context.Background(), tg, opts)
	if err != nil {
		o.openErr = err
		return o
	}
	defer s.Close()
	rd := formats.NewReader(s, formats.ReadOptions{})
	for {
		d, err := rd.Next()
		if err != nil {
			if err != io.EOF {
				o.readErr = err
			}
			break
		}
		o.dumps++
		for r, err := range rd.Routines() {
			if err == nil && r != nil {
				o.routines++
			}
		}
		o.cut = o.cut || d.Truncated
	}
	return o
}

// TestCaptureFaults captures every fault path at once, each as its own
// target: each fails (or succeeds) as documented, with a clear error,
// retried only where retrying can help, and the good targets among them
// come back whole.
func TestCaptureFaults(t *testing.T) {
	fs := newFaultServer(t)
	opts := Options{Timeout: 500 * time.Millisecond, Backoff: 10 * time.Millisecond, Retries: 2}
	type want struct {
		openErr, readErr string // substrings, | between choices; "" for none
		calls            int    // requests the path gets
		routines         int    // -1: some, fewer than all
		dumps            int
		cut              bool
	}
	cases := map[string]want{
		pathGood:          {calls: 2, dumps: 1, routines: faultGoroutines}, // one redirected
		pathRedirect:      {calls: 1, dumps: 1, routines: faultGoroutines},
		pathRedirectLoop:  {openErr: "redirect", calls: 10},
		pathResetMidBody:  {readErr: "reset", calls: 1, dumps: 1, routines: -1, cut: true},
		pathResetAtOnce:   {openErr: "reset", calls: 3},
		pathStallHeaders:  {openErr: "timeout", calls: 1}, // Timeout bounds the capture: no time is left for a retry
		pathStallBody:     {readErr: "not complete within the 500ms timeout", calls: 1, dumps: 1, routines: -1, cut: true},
		pathServerError:   {openErr: "500 Internal Server Error: runtime error", calls: 3},
		pathHTML:          {openErr: "not a dump", calls: 1},
		pathHTMLUnlabeled: {calls: 1, dumps: 0},
	}
	results := make(map[string]faultOutcome)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for path := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := captureFault(fs, path, opts)
			mu.Lock()
			results[path] = o
			mu.Unlock()
		}()
	}
	wg.Wait()
	for path, w := range cases {
		o := results[path]
		t.Logf("%-14s %4dms open: %v; read: %v; %d dumps, %d routines, truncated %v", path, o.elapsed.Milliseconds(), o.openErr, o.readErr, o.dumps, o.routines, o.cut)
		if !errMatches(o.openErr, w.openErr) || !errMatches(o.readErr, w.readErr) {
			t.Errorf("%s: open error %v, read error %v; want %q, %q", path, o.openErr, o.readErr, w.openErr, w.readErr)
		}
		if o.openErr != nil && !strings.Contains(o.openErr.Error(), fs.URL+path) {
			t.Errorf("%s: error %q does not name the target", path, o.openErr)
		}
		// Only the target that never answered is ErrTimeout, and its
		// advice names the option that sets the bound.
		if timedOut := path == pathStallHeaders; errors.Is(o.openErr, ErrTimeout) != timedOut ||
			timedOut && !strings.Contains(o.openErr.Error(), "; Options.Timeout sets the bound") {
			t.Errorf("%s: open error %v: ErrTimeout %v, want %v with its advice", path, o.openErr, errors.Is(o.openErr, ErrTimeout), timedOut)
		}
		if got := fs.callsTo(path); got != w.calls {
			t.Errorf("%s: %d requests, want %d", path, got, w.calls)
		}
		if o.dumps != w.dumps || o.cut != w.cut {
			t.Errorf("%s: %d dumps (truncated %v), want %d (%v)", path, o.dumps, o.cut, w.dumps, w.cut)
		}
		switch {
		case w.routines >= 0 && o.routines != w.routines:
			t.Errorf("%s: %d routines, want %d", path, o.routines, w.routines)
		case w.routines < 0 && (o.routines == 0 || o.routines >= faultGoroutines):
			t.Errorf("%s: %d routines, want those received before the fault", path, o.routines)
		}
		if o.elapsed > 10*time.Second {
			t.Errorf("%s: took %v", path, o.elapsed)
		}
	}
}

// errMatches reports whether err holds one of the |-separated substrings
// of want, or is nil for an empty want.
func errMatches(err error, want string) bool {
	if want == "" || err == nil {
		return want == "" && err == nil
	}
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(err.Error(), w) {
			return true
		}
	}
	return false
}

// TestRedirectLoopIsNotRetried checks the error a redirect loop gives: a
// configuration problem, like a 4xx, so it is not tried again.
func TestRedirectLoopIsNotRetried(t *testing.T) {
	fs := newFaultServer(t)
	o := captureFault(fs, pathRedirectLoop, Options{Backoff: time.Millisecond, Retries: 5})
	if !errors.Is(o.openErr, ErrRedirectLoop) {
		t.Fatalf("error %v, want ErrRedirectLoop", o.openErr)
	}
	if n := fs.callsTo(pathRedirectLoop); n != 10 {
		t.Errorf("%d requests, want 10 (one attempt, as net/http stops)", n)
	}
}

// TestStallIsBoundedByTimeout checks that Timeout bounds one attempt,
// body included, however the target stalls; counted in attempts.
func TestStallIsBoundedByTimeout(t *testing.T) {
	fs := newFaultServer(t)
	for _, path := range []string{pathStallHeaders, pathStallBody} {
		o := captureFault(fs, path, Options{Timeout: 200 * time.Millisecond, Retries: -1})
		if o.openErr == nil && o.readErr == nil || fs.callsTo(path) != 1 {
			t.Errorf("%s: no error (%v, %v) or %d attempts", path, o.openErr, o.readErr, fs.callsTo(path))
		}
		if o.elapsed < 200*time.Millisecond || o.elapsed > 5*time.Second {
			t.Errorf("%s: gave up after %v with a 200ms timeout", path, o.elapsed)
		}
	}
}
