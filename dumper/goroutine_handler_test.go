package dumper

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	nethttppprof "net/http/pprof"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestGoroutineHandlerParity serves net/http/pprof's goroutine handler and
// ours from one server and compares them at debug=0, 1 and 2: content
// types, dispositions and goroutine counts.
func TestGoroutineHandlerParity(t *testing.T) {
	startFixture(t, 50)
	mux := http.NewServeMux()
	mux.Handle("/std", nethttppprof.Handler("goroutine"))
	mux.Handle("/ours", GoroutineHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer rawClient.CloseIdleConnections()

	for _, debug := range []string{"0", "1", "2"} {
		stdResp, stdBody := get(t, srv.URL+"/std?debug="+debug)
		ourResp, ourBody := get(t, srv.URL+"/ours?debug="+debug)
		for _, h := range []string{"Content-Type", "Content-Disposition", "X-Content-Type-Options"} {
			if s, o := stdResp.Header.Get(h), ourResp.Header.Get(h); s != o {
				t.Errorf("debug=%s: %s %q, net/http/pprof says %q", debug, h, o, s)
			}
		}
		stdTotal, stdFixture := countGoroutines(t, debug, stdBody)
		ourTotal, ourFixture := countGoroutines(t, debug, ourBody)
		if ourFixture != stdFixture || ourFixture != 6*50 {
			t.Errorf("debug=%s: %d fixture goroutines, net/http/pprof %d, want %d", debug, ourFixture, stdFixture, 6*50)
		}
		// The rest (test runner, server) may differ by the odd goroutine
		// between the two requests.
		if d := ourTotal - stdTotal; d < -2 || d > 2 {
			t.Errorf("debug=%s: %d goroutines in all, net/http/pprof %d", debug, ourTotal, stdTotal)
		}
	}

	resp, body := get(t, srv.URL+"/ours?seconds=1")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != `attachment; filename="goroutine-delta"` {
		t.Fatalf("seconds=1: %d %v", resp.StatusCode, resp.Header)
	}
	if _, err := profile.ParseData(body); err != nil {
		t.Errorf("seconds=1: %v", err)
	}
	if resp, _ := get(t, srv.URL+"/ours?seconds=1&debug=1"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("seconds with debug=1: %d, want 400", resp.StatusCode)
	}
}

var reDebug1Total = regexp.MustCompile(`^goroutine profile: total (\d+)\n`)

// countGoroutines counts all goroutines and fixture goroutines in a
// goroutine profile response.
func countGoroutines(t *testing.T, debug string, body []byte) (total, fixture int) {
	t.Helper()
	switch debug {
	case "0":
		p, err := profile.ParseData(body)
		if err != nil {
			t.Fatalf("debug=0: %v", err)
		}
		for _, s := range p.Sample {
			total += int(s.Value[0])
			for _, loc := range s.Location {
				if slices.ContainsFunc(loc.Line, func(l profile.Line) bool { return strings.Contains(l.Function.Name, "dumper.parked") }) {
					fixture += int(s.Value[0])
					break
				}
			}
		}
	case "1":
		m := reDebug1Total.FindSubmatch(body)
		if m == nil {
			t.Fatalf("debug=1: no total line in %.100q", body)
		}
		total, _ = strconv.Atoi(string(m[1]))
		for rec := range bytes.SplitSeq(body, []byte("\n\n")) {
			if bytes.Contains(rec, []byte("dumper.parked")) {
				line := rec[bytes.LastIndexByte(rec[:bytes.Index(rec, []byte(" @ "))], '\n')+1:]
				n, _ := strconv.Atoi(string(line[:bytes.IndexByte(line, ' ')]))
				fixture += n
			}
		}
	default:
		for rec := range bytes.SplitSeq(body, []byte("\n\n")) {
			if bytes.HasPrefix(rec, []byte("goroutine ")) {
				total++
				if bytes.Contains(rec, []byte("dumper.parked")) {
					fixture++
				}
			}
		}
	}
	return total, fixture
}
