package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/remote"
)

// TestCaptureEndpointURL captures stackdump's endpoint named by its full
// URL, as `capture http://host:port/debug/stackdump` (the help's "that URL
// (… or the endpoint)"): the endpoint is asked in its own parameters, not
// net/http/pprof's debug=2 (which it answers 400).
func TestCaptureEndpointURL(t *testing.T) {
	leak(t, 7)
	mux := http.NewServeMux()
	mux.Handle(remote.DefaultEndpointPath, dumper.Handler(dumper.HandlerOptions{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, target := range []string{srv.URL + remote.DefaultEndpointPath, strings.TrimPrefix(srv.URL, "http://") + remote.DefaultEndpointPath} {
		out := filepath.Join(t.TempDir(), "dump.json")
		if _, stderr, err := runCLI(t, "capture", "-q", target, "-o", out); err != nil {
			t.Fatalf("%s: %v\n%s", target, err, stderr)
		}
		d := readDumpFile(t, out)[0]
		if got := countFunc(d, ".leakyWorker"); got < 7 {
			t.Errorf("%s: %d leakyWorker goroutines, want at least 7", target, got)
		}
		if c := d.Source.Capture; c == nil || c.Mode != "full" {
			t.Errorf("%s: the endpoint's capture metadata did not come through: %+v", target, c)
		}
	}
}

// TestCaptureRefusesOtherProfiles names net/http/pprof pages that are not
// the goroutine profile: each is refused before any request, so that a
// mistyped URL neither starts a 30 s CPU profile nor runs the leak
// profile's GC cycle unguarded, and is never written as a goroutine dump
// (threadcreate's debug=1 text would read as one).
func TestCaptureRefusesOtherProfiles(t *testing.T) {
	mux := pprofMux()
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv, requests := countRequests(t, mux)
	for _, tc := range []struct{ page, want string }{
		{"heap", "is the heap profile, not a goroutine dump"},
		{"threadcreate", "is the thread creation profile"},
		{"profile?seconds=30", "is the CPU profile"},
		{"goroutineleak", "take it with --mode leak"},
	} {
		for _, mode := range []string{"full", "leak"} {
			out := filepath.Join(t.TempDir(), "dump.txt")
			_, _, err := runCLI(t, "capture", "-q", "--mode", mode, srv.URL+"/debug/pprof/"+tc.page, "-o", out)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "(/debug/pprof/goroutine)") {
				t.Errorf("%s, --mode %s: err = %v, want %q naming /debug/pprof/goroutine", tc.page, mode, err, tc.want)
			}
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
}

// TestModeHelpNamesEveryMode: --mode's help of capture and watch names
// every mode remote.ParseMode accepts (debug1 was accepted, and named by
// the error for an unknown mode, but missing from the help).
func TestModeHelpNamesEveryMode(t *testing.T) {
	for _, command := range []string{"capture", "watch"} {
		stdout, _, err := runCLI(t, command, "--help")
		if err != nil {
			t.Fatal(err)
		}
		line := ""
		for l := range strings.Lines(stdout) {
			if strings.Contains(l, "--mode string") {
				line = l
			}
		}
		for _, mode := range []string{"full", "grouped", "trace", "leak", "debug1"} {
			if _, err := remote.ParseMode(mode); err != nil {
				t.Fatalf("ParseMode(%q): %v", mode, err)
			}
			if !strings.Contains(line, mode+" (") {
				t.Errorf("%s --help: --mode does not describe %q:\n%s", command, mode, line)
			}
		}
	}
}

// TestCaptureRedactsPassword captures a net/http/pprof server behind basic
// authentication through a URL with user and password: the capture
// authenticates, but the password is in no message, no dump written and
// no watch line (which the metrics' target label shares); before, each
// carried it as written.
func TestCaptureRedactsPassword(t *testing.T) {
	const secret = "s3cret-p4ss"
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "oncall" || pass != secret {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := "http://oncall:" + secret + "@" + strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir() + "/"
	stdout, stderr, err := runCLI(t, "capture", base, base+"/debug/pprof/missing-page", "-o", dir)
	if err == nil {
		t.Fatal("the capture of a missing page succeeded")
	}
	if !strings.Contains(stdout, "oncall:xxxxx@") || !strings.Contains(stderr, "404") {
		t.Errorf("the capture did not go as planned:\n%s\n%s", stdout, stderr)
	}
	files, _ := filepath.Glob(dir + "*.json.gz")
	if len(files) != 1 {
		t.Fatalf("%d dumps written, want 1", len(files))
	}
	d := readDumpFile(t, files[0])[0]
	if d.Source.Target != "http://oncall:xxxxx@"+strings.TrimPrefix(srv.URL, "http://") {
		t.Errorf("the dump's target is %q, want the URL with the password redacted", d.Source.Target)
	}
	watched, watchErr, err := runCLI(t, "watch", base, "--count", "1", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, watchErr)
	}
	for what, text := range map[string]string{"capture stdout": stdout, "capture stderr": stderr, "watch": watched + watchErr} {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows the password:\n%s", what, text)
		}
	}
}

// TestCaptureCatchAllRoot captures host:port of a service whose "/"
// handler answers every path (a welcome text, a web application's HTML)
// beside net/http/pprof: endpoint discovery takes the answer at
// /debug/stackdump for what it is, not stackdump's endpoint (it lacks the
// endpoint's X-Stackdump-Mode header), and falls back to net/http/pprof.
// Before, the capture failed with "no dump found" or "answered text/html".
func TestCaptureCatchAllRoot(t *testing.T) {
	leak(t, 6)
	for _, page := range []struct{ contentType, body string }{
		{"text/plain; charset=utf-8", "welcome to the service\n"},
		{"text/html; charset=utf-8", "<!doctype html><title>app</title><div id=root></div>"},
	} {
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", page.contentType)
			io.WriteString(w, page.body)
		})
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		srv := httptest.NewServer(mux)
		for _, mode := range []string{"full", "grouped"} {
			out := filepath.Join(t.TempDir(), "dump.json")
			if _, stderr, err := runCLI(t, "capture", "-q", "--mode", mode, strings.TrimPrefix(srv.URL, "http://"), "-o", out); err != nil {
				t.Errorf("%s catch-all, --mode %s: %v\n%s", page.contentType, mode, err, stderr)
				continue
			}
			if got := countFunc(readDumpFile(t, out)[0], ".leakyWorker"); got < 6 {
				t.Errorf("%s catch-all, --mode %s: %d leakyWorker goroutines, want at least 6", page.contentType, mode, got)
			}
		}
		srv.Close()
	}
}

// TestCapturePprofIndexURL captures net/http/pprof's index page URL, as a
// browser shows it (…/debug/pprof/): its goroutine profile is captured.
// Before, the index's HTML was fetched and refused as "not a dump (is this
// a debug endpoint?)".
func TestCapturePprofIndexURL(t *testing.T) {
	leak(t, 5)
	srv := pprofServer(t)
	for _, target := range []string{srv.URL + "/debug/pprof/", srv.URL + "/debug/pprof"} {
		out := filepath.Join(t.TempDir(), "dump.json")
		if _, stderr, err := runCLI(t, "capture", "-q", target, "-o", out); err != nil {
			t.Errorf("%s: %v\n%s", target, err, stderr)
			continue
		}
		if got := countFunc(readDumpFile(t, out)[0], ".leakyWorker"); got < 5 {
			t.Errorf("%s: %d leakyWorker goroutines, want at least 5", target, got)
		}
	}
}

// TestCaptureTraceMaxBytes takes an execution-trace snapshot larger than
// --max-bytes: the capture fails with the size limit's error and writes no
// file. Before, the trace reader took the cut for a trace that ended early,
// and a dump of few or no goroutines was written with exit status 0.
func TestCaptureTraceMaxBytes(t *testing.T) {
	leak(t, 50)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "snap.json")
	_, stderr, err := runCLI(t, "capture", "-q", "--mode", "trace", "--max-bytes", "2000", srv.URL+"/debug/pprof/goroutine", "-o", out)
	if err == nil || !strings.Contains(stderr, "exceeds the size limit") {
		t.Errorf("err = %v, want the size limit's error:\n%s", err, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a cut snapshot was written to %s (stat: %v)", out, err)
	}
}
