package remote

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSharedClientKeepsConnection captures one target four times with one
// client (NewClient, Options.Client): through the endpoint probe's 404 with
// a long body, and streams closed after reading only their start, the
// captures share one kept-alive connection, and Resolved reports the probed
// kind.
func TestSharedClientKeepsConnection(t *testing.T) {
	var conns atomic.Int64
	dump, err := os.ReadFile("../testdata/go/demo_go126.txt") // a real debug=2 dump
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/stackdump", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("not here ", 1000), http.StatusNotFound)
	})
	mux.HandleFunc("/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		// The second half comes later: a stream closed after reading its
		// start has not seen the end of the body.
		w.Header().Set("Content-Type", "text/plain")
		w.Write(dump[:len(dump)/2])
		w.(http.Flusher).Flush()
		time.Sleep(20 * time.Millisecond)
		w.Write(dump[len(dump)/2:])
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	target, err := ParseTarget(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}
	opts.Client = NewClient(opts)
	defer opts.Client.CloseIdleConnections()
	var resolved []Target
	opts.Resolved = func(rt Target) { resolved = append(resolved, rt) }
	for i := range 4 {
		s, err := Open(context.Background(), target, opts)
		if err != nil {
			t.Fatalf("capture %d: %v", i+1, err)
		}
		head := make([]byte, 100)
		if _, err := io.ReadFull(s, head); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("four captures opened %d connections, want 1", n)
	}
	if len(resolved) != 4 || resolved[0].Kind != TargetPprof || resolved[0].Discover {
		t.Errorf("Resolved got %+v, want the pprof target without discovery on each probe", resolved)
	}
	// The resolved target skips the probe.
	s, err := Open(context.Background(), resolved[0], opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(s.URL, "/debug/pprof/goroutine?debug=2") {
		t.Errorf("resolved target fetched %s", s.URL)
	}
	s.Close()
}
