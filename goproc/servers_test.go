//go:build linux && (amd64 || arm64)

package goproc

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// server is a Go server as a distribution ships it (stripped, built with
// cgo; Debian 12's are built by go1.19.8), started on loopback ports.
type server struct {
	name, pkg string
	// args returns its command line's arguments, its environment and the
	// URL of its own debug=2 traceback, given a private directory and a
	// loopback address no one listens on (the next one for a second port).
	args func(dir string, addr func() string) (args, env []string, debug2 string)
}

var servers = []server{
	{"etcd", "etcd-server", func(dir string, addr func() string) ([]string, []string, string) {
		client, peer := addr(), addr()
		return []string{"--name", "goproc", "--data-dir", filepath.Join(dir, "data"),
			"--listen-client-urls", "http://" + client, "--advertise-client-urls", "http://" + client,
			"--listen-peer-urls", "http://" + peer, "--initial-advertise-peer-urls", "http://" + peer,
			"--initial-cluster", "goproc=http://" + peer, "--enable-pprof"}, nil, "http://" + client + "/debug/pprof/goroutine?debug=2"
	}},
	{"prometheus", "prometheus", func(dir string, addr func() string) ([]string, []string, string) {
		a := addr()
		config := filepath.Join(dir, "prometheus.yml")
		os.WriteFile(config, []byte("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: ['"+a+"']\n"), 0o644)
		return []string{"--config.file=" + config, "--web.listen-address=" + a, "--storage.tsdb.path=" + filepath.Join(dir, "data")},
			nil, "http://" + a + "/debug/pprof/goroutine?debug=2"
	}},
	{"nats-server", "nats-server", func(dir string, addr func() string) ([]string, []string, string) {
		host, port, _ := net.SplitHostPort(addr())
		prof := addr()
		_, pport, _ := net.SplitHostPort(prof)
		return []string{"-a", host, "-p", port, "--profile", pport}, nil, "http://" + prof + "/debug/pprof/goroutine?debug=2"
	}},
	{"caddy", "caddy", func(dir string, addr func() string) ([]string, []string, string) {
		admin, site := addr(), addr()
		config := filepath.Join(dir, "caddy.json")
		os.WriteFile(config, []byte(`{"admin":{"listen":"`+admin+`"},"apps":{"http":{"servers":{"s":{"listen":["`+site+
			`"],"automatic_https":{"disable":true},"routes":[{"handle":[{"handler":"static_response","body":"ok"}]}]}}}}}`), 0o644)
		return []string{"run", "--config", config},
			[]string{"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config")},
			"http://" + admin + "/debug/pprof/goroutine?debug=2"
	}},
}

// TestReadRealServers reads the installed etcd, Prometheus, nats-server
// and caddy (.ci/run installs Debian's), stopped and not, between two of
// their own debug=2 tracebacks: every goroutine parked across both must
// be read as the server printed it.
func TestReadRealServers(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			bin, err := exec.LookPath(s.name)
			if err != nil {
				t.Skipf("%s is not installed (apt-get install %s; .ci/run does)", s.name, s.pkg)
			}
			dir := t.TempDir()
			var listeners []net.Listener
			addr := func() string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				listeners = append(listeners, ln) // held until all are chosen: distinct ports
				return ln.Addr().String()
			}
			args, env, debug2 := s.args(dir, addr)
			for _, ln := range listeners {
				ln.Close()
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
			livechild.StartServer(t, cmd)
			pid := cmd.Process.Pid
			before := fetchDebug2(t, debug2, 60*time.Second)
			stopped, err := ReadProcess(context.Background(), pid, ProcessOptions{})
			if err != nil {
				t.Fatalf("ReadProcess: %v", err)
			}
			live, err := ReadProcess(context.Background(), pid, ProcessOptions{NoStop: true})
			if err != nil {
				t.Fatalf("ReadProcess without stopping: %v", err)
			}
			after := fetchDebug2(t, debug2, 10*time.Second)
			b := stopped.Binary
			t.Logf("%s: %s, stripped %v, PIE %v, globals from the %s", bin, b.GoVersion(), b.Stripped, b.PIE, b.globalsFrom)
			minor, _ := rtlayout.Minor(b.GoVersion())
			for _, pr := range []*ProcessRead{stopped, live} {
				n := compareServer(t, pr.Dump, before, after, minor >= 26)
				t.Logf("%s: %d goroutines read, %d parked across both tracebacks compared", pr.Dump.Source.Capture.Mode, len(pr.Dump.Routines), n)
				if n < 5 {
					t.Errorf("%s: compared %d goroutines, want at least 5", pr.Dump.Source.Capture.Mode, n)
				}
			}
		})
	}
}

// compareServer checks that every goroutine a server printed the same
// way in both tracebacks is in got, written the same way, and that got
// holds few goroutines in neither (those a busy server starts and ends
// between the tracebacks; the runtime's own would be many). It returns
// how many were compared.
func compareServer(t *testing.T, got *stack.Dump, before, after []byte, printsLabels bool) int {
	t.Helper()
	b, a, g := runtimeDump(t, before), byID(runtimeDump(t, after)), byID(got)
	n := 0
	for _, want := range b.Routines {
		if want.State == "running" {
			continue // serving the traceback
		}
		if wa, ok := a[want.ID]; !ok || render(t, wa) != render(t, want) {
			continue // moved
		}
		compareRoutine(t, want, g[want.ID], printsLabels)
		n++
	}
	bb, extra := byID(b), 0
	for _, r := range got.Routines {
		if bb[r.ID] == nil && a[r.ID] == nil {
			t.Logf("goroutine %d is in neither traceback:\n%s", r.ID, render(t, r))
			extra++
		}
	}
	if extra > len(got.Routines)/10 {
		t.Errorf("%d of %d goroutines read are in neither of the server's tracebacks", extra, len(got.Routines))
	}
	return n
}

// fetchDebug2 returns the server's debug=2 traceback, waiting for it to
// answer at most within.
func fetchDebug2(t *testing.T, url string, within time.Duration) []byte {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	var last string
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		resp, err := c.Get(url)
		if err != nil {
			last = err.Error()
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK && strings.HasPrefix(string(body), "goroutine ") {
			return body
		}
		last = resp.Status
	}
	t.Fatalf("%s did not answer within %v: %s", url, within, last)
	return nil
}
