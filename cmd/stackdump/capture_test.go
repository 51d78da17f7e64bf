package main

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dumper"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// pprofServer serves this test process's net/http/pprof on 127.0.0.1.
func pprofServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func readDumpFile(t *testing.T, path string) []*stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return dumps
}

func countFunc(d *stack.Dump, fn string) int64 {
	var n int64
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if strings.HasSuffix(f.Func, fn) {
				n += r.Count
				break
			}
		}
	}
	return n
}

func TestCaptureSeveralTargetsOneFailing(t *testing.T) {
	leak(t, 25)
	a, b := pprofServer(t), pprofServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()

	dir := t.TempDir() + "/out/"
	stdout, stderr, err := runCLI(t, "capture", "--retries", "-1", a.URL, refused, b.URL+"/debug/pprof/goroutine", "-o", dir)
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 1 {
		t.Fatalf("err = %v, want exit status 1 for the refused target", err)
	}
	if !strings.Contains(stderr, refused) || !strings.Contains(stderr, "refused") {
		t.Errorf("stderr does not name the failing target:\n%s", stderr)
	}
	files, _ := filepath.Glob(dir + "*")
	if len(files) != 2 {
		t.Fatalf("files in the output directory: %v, want one per good target", files)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, ".json.gz") || strings.Contains(filepath.Base(f), ".tmp-") {
			t.Errorf("unexpected file %s", f)
		}
		dumps := readDumpFile(t, f)
		if len(dumps) != 1 || countFunc(dumps[0], ".leakyWorker") != 25 {
			t.Errorf("%s: %d dumps, %d leakyWorker goroutines; want 1 dump with 25", f, len(dumps), countFunc(dumps[0], ".leakyWorker"))
		}
		if dumps[0].Source.Target == "" {
			t.Errorf("%s: the dump does not say which target it came from", f)
		}
	}
	if !strings.Contains(stdout, "leakyWorker") || !strings.Contains(stdout, "states:") {
		t.Errorf("summary lacks the top group or the states:\n%s", stdout)
	}
}

func TestCaptureOneTargetToStdout(t *testing.T) {
	leak(t, 12)
	srv := pprofServer(t)
	stdout, stderr, err := runCLI(t, "capture", "-q", "--format", "json", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var doc struct {
		Format     string `json:"format"`
		Total      int64  `json:"total"`
		Goroutines []struct {
			Stack []struct {
				Func string `json:"func"`
			} `json:"stack"`
		} `json:"goroutines"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%.500s", err, stdout)
	}
	n := 0
	for _, g := range doc.Goroutines {
		for _, f := range g.Stack {
			if strings.HasSuffix(f.Func, ".leakyWorker") {
				n++
			}
		}
	}
	if doc.Format != "stackdump/v1" || n != 12 || doc.Total != int64(len(doc.Goroutines)) {
		t.Errorf("format %q, %d leakyWorker goroutines, total %d of %d listed", doc.Format, n, doc.Total, len(doc.Goroutines))
	}
	if stderr != "" {
		t.Errorf("-q still printed: %s", stderr)
	}
}

func TestCaptureDedupeGrouped(t *testing.T) {
	leak(t, 30)
	srv := pprofServer(t)
	out := filepath.Join(t.TempDir(), "groups.json")
	if _, stderr, err := runCLI(t, "capture", "-q", "--dedupe", "--mode", "grouped", srv.URL, "-o", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dumps := readDumpFile(t, out)
	if got := countFunc(dumps[0], ".leakyWorker"); got != 30 {
		t.Errorf("grouped capture counts %d leakyWorker goroutines, want 30", got)
	}
}

func TestCaptureArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"capture"}, "no target"},
		{[]string{"capture", "a:1", "b:2", "-o", "x.json"}, "need a directory"},
		{[]string{"capture", "--mode", "fast", "a:1"}, `unknown mode "fast"`},
		{[]string{"capture", "--by", "line", "a:1"}, "unknown similarity"},
		{[]string{"capture", "ftp://x:1/"}, "unsupported scheme"},
	} {
		_, _, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestCaptureFindsStackdumpEndpoint captures a service that mounts
// dumper.Handler at the default path: capture finds it from the base URL
// and reads its compressed JSON.
func TestCaptureFindsStackdumpEndpoint(t *testing.T) {
	leak(t, 9)
	mux := http.NewServeMux()
	mux.Handle(remote.DefaultEndpointPath, dumper.Handler(dumper.HandlerOptions{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "dump.json.zst")
	if _, stderr, err := runCLI(t, "capture", "-q", srv.URL, "-o", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dumps := readDumpFile(t, out)
	if got := countFunc(dumps[0], ".leakyWorker"); got != 9 {
		t.Errorf("capture through the endpoint counts %d leakyWorker goroutines, want 9", got)
	}
	if c := dumps[0].Source.Capture; c == nil || c.Mode != "full" {
		t.Errorf("the endpoint's capture metadata did not come through: %+v", c)
	}
}

// TestCaptureTraceMode takes an execution-trace snapshot through
// net/http/pprof's /debug/pprof/trace and through stackdump's endpoint.
func TestCaptureTraceMode(t *testing.T) {
	leak(t, 14)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/custom/dump", dumper.Handler(dumper.HandlerOptions{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, target := range []string{srv.URL + "/debug/pprof/goroutine", srv.URL + "/custom/dump"} {
		out := filepath.Join(t.TempDir(), "snap.json")
		if _, stderr, err := runCLI(t, "capture", "-q", "--mode", "trace", "--endpoint", "/custom/dump", target, "-o", out); err != nil {
			t.Fatalf("%s: %v\n%s", target, err, stderr)
		}
		d := readDumpFile(t, out)[0]
		n := 0
		for _, r := range d.Routines {
			if len(r.Frames()) > 0 && strings.HasSuffix(r.Frames()[0].Func, ".leakyWorker") {
				n++
				if r.State != "chan receive" {
					t.Errorf("%s: goroutine %d in leakyWorker has state %q, want chan receive", target, r.ID, r.State)
				}
			}
		}
		if n != 14 || d.Source.Capture == nil || d.Source.Capture.Mode != "trace" {
			t.Errorf("%s: %d leakyWorker goroutines (want 14), capture %+v", target, n, d.Source.Capture)
		}
	}
}

// TestCaptureTargetsFile reads targets from a file with comments and blank
// lines and captures each into the directory.
func TestCaptureTargetsFile(t *testing.T) {
	leak(t, 5)
	a, b := pprofServer(t), pprofServer(t)
	list := filepath.Join(t.TempDir(), "targets.txt")
	content := "# production pprof endpoints\n" + a.URL + "\n\n  " + b.URL + "/debug/pprof/goroutine  # the second one\n"
	if err := os.WriteFile(list, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/"
	if _, stderr, err := runCLI(t, "capture", "-q", "--targets", list, "--concurrency", "2", "-o", dir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	files, _ := filepath.Glob(dir + "*.json.gz")
	if len(files) != 2 {
		t.Fatalf("files %v, want one per listed target", files)
	}
	for _, f := range files {
		if got := countFunc(readDumpFile(t, f)[0], ".leakyWorker"); got != 5 {
			t.Errorf("%s: %d leakyWorker goroutines, want 5", f, got)
		}
	}
}
