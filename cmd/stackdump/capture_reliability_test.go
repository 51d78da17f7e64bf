package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// captureFaultServer serves this process's net/http/pprof on 127.0.0.1
// beside paths that fail as a capture target can.
func captureFaultServer(t *testing.T) *httptest.Server {
	dump, err := os.ReadFile("../../testdata/go/debug2_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/debug/pprof/goroutine?"+r.URL.RawQuery, http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(dump))
		buf.Write(dump[:len(dump)/2])
		buf.Flush()
		time.Sleep(20 * time.Millisecond)
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Write(dump[:len(dump)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>sign in</body></html>")
	})
	mux.HandleFunc("/html-as-text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "<html><body>sign in</body></html>\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestCaptureFaultyTargets captures two good targets (one behind a
// redirect, both on one host) and eight that fail, in one run into a
// directory: every failure is reported with its target and cause, the
// exit status is 1, and the directory holds exactly the two good dumps,
// whole, with no partial or temporary file.
func TestCaptureFaultyTargets(t *testing.T) {
	leak(t, 15)
	srv := captureFaultServer(t)
	good := []string{srv.URL + "/debug/pprof/goroutine", srv.URL + "/redirect"}
	bad := map[string]string{ // target: what its error must say
		srv.URL + "/loop":         "too many redirects",
		srv.URL + "/reset":        "connection reset",
		srv.URL + "/stall":        "not complete within the 500ms timeout",
		srv.URL + "/silent":       "no answer within the 500ms timeout",
		srv.URL + "/500":          "500 Internal Server Error",
		srv.URL + "/html":         "not a dump",
		srv.URL + "/html-as-text": "no dump found",
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bad[l.Addr().String()] = "refused"
	l.Close()

	args := []string{"capture", "-q", "--timeout", "500ms", "--retries", "1", "-o", t.TempDir() + "/out/"}
	dir := args[len(args)-1]
	args = append(args, good...)
	for target := range bad {
		args = append(args, target)
	}
	start := time.Now()
	_, stderr, err := runCLI(t, args...)
	t.Logf("%d targets in %v:\n%s", len(good)+len(bad), time.Since(start).Round(time.Millisecond), stderr)
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 1 || !strings.Contains(err.Error(), fmt.Sprintf("%d of %d targets failed", len(bad), len(good)+len(bad))) {
		t.Fatalf("err = %v, want exit status 1 for %d failed targets", err, len(bad))
	}
	for target, why := range bad {
		line := regexp.MustCompile(`(?m)^stackdump: ` + regexp.QuoteMeta(target) + `: .*` + regexp.QuoteMeta(why))
		if !line.MatchString(stderr) {
			t.Errorf("no error line for %s saying %q", target, why)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(good) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("output directory holds %v, want the %d good dumps only", names, len(good))
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || !strings.HasSuffix(e.Name(), ".json.gz") {
			t.Errorf("unexpected file %s", e.Name())
			continue
		}
		dumps := readDumpFile(t, filepath.Join(dir, e.Name()))
		if len(dumps) != 1 || dumps[0].Truncated || countFunc(dumps[0], ".leakyWorker") != 15 {
			t.Errorf("%s: %d dumps, want 1 whole dump with 15 leakyWorker goroutines", e.Name(), len(dumps))
		}
	}
}

// TestCaptureRetriesFlag captures a 127.0.0.1 server that answers 503 and
// counts requests: --retries N makes N+1 attempts, --retries 0 exactly one,
// and without the flag the default of 2 retries holds.
func TestCaptureRetriesFlag(t *testing.T) {
	srv, requests := countRequests(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	target := srv.URL + "/debug/pprof/goroutine"
	for _, tt := range []struct {
		flags []string
		want  int64
	}{
		{[]string{"--retries", "0"}, 1},
		{[]string{"--retries", "2"}, 3},
		{nil, 3},
		{[]string{"--retries", "1"}, 2},
	} {
		requests.Store(0)
		args := append([]string{"capture", "-q", target, "-o", filepath.Join(t.TempDir(), "d.json")}, tt.flags...)
		_, stderr, err := runCLI(t, args...)
		if err == nil || !strings.Contains(stderr, "503") {
			t.Errorf("%v: err = %v, stderr %q; want a failure naming the 503", tt.flags, err, stderr)
		}
		if got := requests.Load(); got != tt.want {
			t.Errorf("%v: %d requests, want %d", tt.flags, got, tt.want)
		}
	}
}

// TestCaptureJVMRefusesGoProcess runs `capture jvm:PID` against a Go
// process (the truncation child with one goroutine): the command exits 1
// saying the PID is not a Java virtual machine, and the process, which
// the SIGQUIT of jcmd or jstack would kill, is still alive.
func TestCaptureJVMRefusesGoProcess(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "STACKDUMP_TRUNC_CHILD=1")
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() { child.Process.Kill(); <-exited })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	go func() { exited <- child.Wait() }()
	if !strings.HasPrefix(line, "addr ") {
		t.Fatalf("child did not start: %q", line)
	}
	pid := strconv.Itoa(child.Process.Pid)
	_, stderr, err := runCLI(t, "capture", "-q", "jvm:"+pid, "-o", filepath.Join(t.TempDir(), "threads.txt"))
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 1 || !strings.Contains(stderr, "PID "+pid+" is not a Java virtual machine") {
		t.Fatalf("err = %v, stderr %q; want exit status 1 saying PID %s is not a Java virtual machine", err, stderr, pid)
	}
	select {
	case err := <-exited:
		t.Fatalf("the Go process died after the refused capture: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
}
