package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCaptureTargetQueryToken captures and watches a net/http/pprof server
// on 127.0.0.1 that answers only requests carrying its token parameter,
// given as 'http://host:port/?token=…': every request carries the token,
// and no message, dump or watch line shows it (token=xxxxx instead).
// Before, the query was dropped from the requests (401) but shown in the
// messages.
func TestCaptureTargetQueryToken(t *testing.T) {
	leak(t, 4)
	const token = "s3cret-t0ken"
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != token {
			refused.Add(1)
			http.Error(w, "token required", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := srv.URL + "/?token=" + token
	masked := srv.URL + "/?token=xxxxx"
	var shown strings.Builder
	for _, mode := range []string{"full", "grouped", "trace"} {
		out := filepath.Join(t.TempDir(), "dump.json")
		stdout, stderr, err := runCLI(t, "capture", "--mode", mode, base, "-o", out)
		shown.WriteString(stdout + stderr)
		if err != nil {
			t.Errorf("--mode %s: %v\n%s", mode, err, stderr)
			continue
		}
		d := readDumpFile(t, out)[0]
		if d.Source.Target != masked {
			t.Errorf("--mode %s: the dump's target is %q, want %q", mode, d.Source.Target, masked)
		}
		if got := countFunc(d, ".leakyWorker"); got < 4 {
			t.Errorf("--mode %s: %d leakyWorker goroutines, want at least 4", mode, got)
		}
	}
	stdout, stderr, err := runCLI(t, "watch", base, "--count", "1", "--json")
	shown.WriteString(stdout + stderr)
	if err != nil || !strings.Contains(stdout, `"target":"`+masked+`"`) {
		t.Errorf("watch: %v, want a line naming %s:\n%s\n%s", err, masked, stdout, stderr)
	}
	if n := refused.Load(); n > 0 {
		t.Errorf("%d requests came without the token", n)
	}
	srv.Close()
	_, stderr, err = runCLI(t, "capture", "--retries", "0", base, "-o", filepath.Join(t.TempDir(), "gone.json"))
	shown.WriteString(stderr)
	if err == nil || !strings.Contains(stderr, "token=xxxxx") {
		t.Errorf("capture of a closed server: %v, want an error naming the target with its token masked:\n%s", err, stderr)
	}
	if strings.Contains(shown.String(), token) {
		t.Errorf("the output shows the token:\n%s", shown.String())
	}
}
