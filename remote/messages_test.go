package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// TestHTTPSToPlainHTTP captures https:// of plain HTTP servers: a Go
// server (net/http answers a TLS handshake with an HTTP 400, which the
// client recognises) and etcd's client port (which closes the
// connection on a TLS handshake: a plain HTTP request tells). Both say
// the port speaks plain HTTP and to write http://, after one attempt.
func TestHTTPSToPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	addrs := []string{strings.TrimPrefix(srv.URL, "http://")}
	if etcd := startEtcd(t); etcd != "" {
		addrs = append(addrs, etcd)
	}
	for _, addr := range addrs {
		tg, err := ParseTarget("https://"+addr, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), tg, Options{})
		want := addr + " speaks plain HTTP, not HTTPS; write the target as http://" + addr + "/…"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "attempts") || strings.Contains(err.Error(), "not an HTTP server") {
			t.Errorf("https://%s: %v, want %q after one attempt", addr, err, want)
		}
	}
}

// TestTraceModeWithoutTrace captures --mode trace from a net/http/pprof
// mounted piecemeal (pprof.Index alone: every profile but the trace):
// the error names /debug/pprof/trace, which answered 404, and not the
// goroutine profile, which is there.
func TestTraceModeWithoutTrace(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, raw := range []string{srv.URL, srv.URL + "/debug/pprof/goroutine"} {
		tg, err := ParseTarget(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = OpenDocument(context.Background(), tg, Options{Mode: ModeTrace}, formats.ReadOptions{})
		var he *HTTPError
		if err == nil || !errors.As(err, &he) || he.Status != http.StatusNotFound || !errors.Is(err, ErrNoTrace) {
			t.Fatalf("%s: %v, want a 404 that is ErrNoTrace", raw, err)
		}
		msg := err.Error()
		for _, want := range []string{"/debug/pprof/trace?seconds=", "404 Not Found", "the target serves no execution trace", "capture in a mode other than ModeTrace"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", raw, msg, want)
			}
		}
		if strings.Contains(msg, "/debug/pprof/goroutine: 404") || strings.Contains(msg, "no goroutine dump") {
			t.Errorf("%s: %q blames the goroutine profile", raw, msg)
		}
	}
}
