package remote

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
)

// startGopsAgent runs testdata/gen/gopsagent, a real process with a gops
// agent whose port file goes into a directory of the test
// ($GOPS_CONFIG_DIR, set for this process too), and returns its pid and
// the agent's address.
func startGopsAgent(ctx context.Context, t *testing.T) (pid int, addr string) {
	t.Helper()
	t.Setenv("GOPS_CONFIG_DIR", t.TempDir())
	p := livechild.Start(ctx, t, "gopsagent")
	pid, err := strconv.Atoi(p.Send(t, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	return pid, strings.TrimPrefix(p.URL, "http://")
}

// TestGopsPID captures gops://PID of a real process, as gops takes a pid:
// the agent's port comes from the port file the agent wrote.
func TestGopsPID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pid, addr := startGopsAgent(ctx, t)
	tg, err := ParseTarget("gops://"+strconv.Itoa(pid), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "gops://"+addr {
		t.Errorf("stream URL %s, want gops://%s", s.URL, addr)
	}
	body := readStream(t, s)
	if n := bytes.Count(body, []byte("main.parkedForGops(")); n != 5 {
		t.Errorf("gops dump has %d goroutines in main.parkedForGops, want 5:\n%.2000s", n, body)
	}
}

// TestGopsPIDWithoutAgent: a live process without a gops agent, and a pid
// no process has.
func TestGopsPIDWithoutAgent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GOPS_CONFIG_DIR", dir)
	pid, _ := startBlockedChild(t)
	for _, tc := range []struct {
		pid  int
		want string
	}{
		{pid, "gops://" + strconv.Itoa(pid) + ": process " + strconv.Itoa(pid) + " has no gops port file (looked for " + dir + "/" + strconv.Itoa(pid)},
		{999999999, "gops://999999999: no such process"},
	} {
		tg, err := ParseTarget("gops://"+strconv.Itoa(tc.pid), "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), tg, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("gops://%d: %v, want %q", tc.pid, err, tc.want)
		}
	}
}

// TestGopsNotAnAgent points gops:// at real servers that are not gops
// agents: it says what is there instead of waiting the whole --timeout (2
// minutes by default) and then guessing. The capture's timeout is left at
// its default: the message comes from the version command's probe.
func TestGopsNotAnAgent(t *testing.T) {
	httpSrv := httptest.NewServer(http.NotFoundHandler()) // a Go HTTP server: waits for a request line
	defer httpSrv.Close()
	closing := listen(t, func(c net.Conn) { c.Close() })
	banner := listen(t, func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")); c.Close() })
	silent := listen(t, func(c net.Conn) { io.Copy(io.Discard, c); c.Close() })
	cases := []struct {
		addr string
		want []string
	}{
		{strings.TrimPrefix(httpSrv.URL, "http://"), []string{"is an HTTP server, not a gops agent", "capture http://" + strings.TrimPrefix(httpSrv.URL, "http://")}},
		{closing, []string{closing + " is not a gops agent: it closed the connection on gops' version command without an answer"}},
		{banner, []string{banner + ` is not a gops agent: it answered gops' version command with "SSH-2.0-OpenSSH_9.6"`}},
		{silent, []string{silent + " did not answer gops' version command within 2s: it is not a gops agent, or an agent busy"}},
	}
	if etcd := startEtcd(t); etcd != "" {
		cases = append(cases, struct {
			addr string
			want []string
		}{etcd, []string{etcd + " is an HTTP server, not a gops agent"}})
	}
	for _, tc := range cases {
		tg, err := ParseTarget("gops://"+tc.addr, "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(context.Background(), tg, Options{})
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("gops://%s: %v, want %q", tc.addr, err, want)
			}
		}
	}
}

// listen serves each connection of a loopback listener with serve until
// the test ends, and returns its address.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			serve(c)
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

// startEtcd runs Debian's etcd-server on loopback ports until the test
// ends and returns its client address, or "" (logged) when it is not
// installed.
func startEtcd(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Log("etcd is not installed (apt-get install etcd-server): its client port not tested")
		return ""
	}
	free := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	client, peer := free(), free()
	cmd := exec.Command(bin, "--data-dir", t.TempDir(), "--name", "test",
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", "http://"+peer, "--initial-advertise-peer-urls", "http://"+peer,
		"--initial-cluster", "test=http://"+peer)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + client + "/health"); err == nil {
			resp.Body.Close()
			return client
		}
	}
	t.Fatalf("etcd did not serve /health within 30s:\n%s", log.String())
	return ""
}
