package judged

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// lookPath returns the path of a server's program, or skips the case.
func lookPath(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (apt-get install %s): case skipped", name, pkg)
	}
	return p
}

// waitHTTP waits until url answers 200.
func waitHTTP(t testing.TB, url string, within time.Duration) {
	t.Helper()
	c := &http.Client{Timeout: time.Second}
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if resp, err := c.Get(url); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("%s did not answer within %v", url, within)
}

// startEtcd runs Debian's etcd 3.4 with --enable-pprof and opens watches
// watch streams through its grpc-gateway (/v3/watch, one HTTP request
// each, held open): a healthy server with thousands of idle streams. It
// returns the pprof base URL.
func startEtcd(ctx context.Context, t testing.TB, watches int) string {
	bin := lookPath(t, "etcd", "etcd-server")
	client, peer := freeAddr(t), freeAddr(t)
	livechild.StartServer(t, exec.CommandContext(ctx, bin, "--name", "judged", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", "http://"+client, "--advertise-client-urls", "http://"+client,
		"--listen-peer-urls", "http://"+peer, "--initial-advertise-peer-urls", "http://"+peer,
		"--initial-cluster", "judged=http://"+peer, "--enable-pprof"))
	waitHTTP(t, "http://"+client+"/health", 30*time.Second)
	tr := &http.Transport{MaxIdleConnsPerHost: -1}
	hc := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	var wg sync.WaitGroup
	errs := make(chan error, watches)
	sem := make(chan struct{}, 64)
	for i := range watches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			key := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "/judged/key-%d", i%100))
			body := strings.NewReader(`{"create_request":{"key":"` + key + `"}}`)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+client+"/v3/watch", body)
			if err != nil {
				errs <- err
				return
			}
			resp, err := hc.Do(req)
			if err != nil {
				errs <- err
				return
			}
			// The first message says the watch was created; the body
			// stays open, read until the test ends.
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || !strings.Contains(line, `"created":true`) {
				errs <- fmt.Errorf("watch %d: %q, %v", i, line, err)
				resp.Body.Close()
				return
			}
			go func() { io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return "http://" + client
}

// startNats runs nats-server with its profiling port, and a client
// publishing about 200 messages a second to 10 subscribing connections.
// It returns the pprof base URL.
func startNats(ctx context.Context, t testing.TB) string {
	bin := lookPath(t, "nats-server", "nats-server")
	addr, prof := freeAddr(t), freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	_, pport, _ := net.SplitHostPort(prof)
	livechild.StartServer(t, exec.CommandContext(ctx, bin, "-a", host, "-p", port, "--profile", pport))
	waitHTTP(t, "http://"+prof+"/debug/pprof/", 20*time.Second)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil { // INFO
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT {\"verbose\":false,\"pedantic\":false}\r\n")
		return c
	}
	for i := range 10 {
		c := dial()
		fmt.Fprintf(c, "SUB judged.> %d\r\n", i+1)
		go func() {
			// Read the messages and answer the server's PINGs.
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if strings.HasPrefix(line, "PING") {
					fmt.Fprintf(c, "PONG\r\n")
				}
			}
		}()
	}
	pub := dial()
	go func() {
		tk := time.NewTicker(5 * time.Millisecond)
		defer tk.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
			msg := fmt.Sprintf("tick %d", n)
			if _, err := fmt.Fprintf(pub, "PUB judged.ticks %d\r\n%s\r\n", len(msg), msg); err != nil {
				return
			}
		}
	}()
	go io.Copy(io.Discard, pub)
	time.Sleep(500 * time.Millisecond)
	return "http://" + prof
}

// startPrometheus runs Prometheus scraping itself every second.
func startPrometheus(ctx context.Context, t testing.TB) string {
	bin := lookPath(t, "prometheus", "prometheus")
	addr := freeAddr(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	err := os.WriteFile(config, []byte(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: self
    static_configs:
      - targets: ['`+addr+`']
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	livechild.StartServer(t, exec.CommandContext(ctx, bin, "--config.file="+config, "--web.listen-address="+addr,
		"--storage.tsdb.path="+filepath.Join(dir, "data")))
	waitHTTP(t, "http://"+addr+"/-/ready", 30*time.Second)
	time.Sleep(2 * time.Second) // a few scrapes
	return "http://" + addr
}

// startCaddy runs caddy serving a static response on one loopback port
// (its admin API, with pprof, on another) and keeps 50 keep-alive
// connections busy with a request each every 100ms.
func startCaddy(ctx context.Context, t testing.TB) string {
	admin, site := runCaddy(ctx, t)
	tr := &http.Transport{MaxIdleConnsPerHost: 50}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	var served sync.WaitGroup // each client's first answer: 50 connections open
	served.Add(50)
	for range 50 {
		go func() {
			first := true
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site, nil)
				if resp, err := hc.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if first {
					first = false
					served.Done()
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	served.Wait()
	time.Sleep(500 * time.Millisecond) // steady: the snapshots see a healthy server, not its warm-up
	return admin
}

// caddyRampUp runs caddy as startCaddy does, with 30 keep-alive clients
// at first and 20 more before each later snapshot (30, 50, 70), each on a
// connection of its own, asking every 100ms: a healthy server whose load
// rises between the snapshots.
func caddyRampUp(ctx context.Context, t testing.TB) (func() *stack.Dump, func()) {
	admin, site := runCaddy(ctx, t)
	clients := func(n int) {
		var served sync.WaitGroup // each client's first answer: its connection open
		served.Add(n)
		for range n {
			tr := &http.Transport{MaxIdleConnsPerHost: 1}
			t.Cleanup(tr.CloseIdleConnections)
			hc := &http.Client{Transport: tr}
			go func() {
				for first := true; ctx.Err() == nil; first = false {
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, site, nil)
					if resp, err := hc.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					if first {
						served.Done()
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
		}
		served.Wait()
	}
	clients(30)
	time.Sleep(500 * time.Millisecond) // past the warm-up
	return func() *stack.Dump { return captureGo(ctx, t, admin) }, func() { clients(20) }
}

// runCaddy runs caddy serving a static response on one loopback port
// (its admin API, with pprof, on another) and returns both URLs.
func runCaddy(ctx context.Context, t testing.TB) (admin, site string) {
	bin := lookPath(t, "caddy", "caddy")
	adminAddr, siteAddr := freeAddr(t), freeAddr(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "caddy.json")
	err := os.WriteFile(config, []byte(`{"admin":{"listen":"`+adminAddr+`"},"apps":{"http":{"servers":{"judged":{"listen":["`+siteAddr+
		`"],"automatic_https":{"disable":true},"routes":[{"handle":[{"handler":"static_response","body":"ok"}]}]}}}}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "run", "--config", config)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	livechild.StartServer(t, cmd)
	waitHTTP(t, "http://"+siteAddr+"/", 20*time.Second)
	return "http://" + adminAddr, "http://" + siteAddr + "/"
}

// startZooKeeper runs Debian's ZooKeeper (its jar, with java) standalone
// on a loopback port, idle, and returns its pid.
func startZooKeeper(ctx context.Context, t testing.TB) int {
	java := lookPath(t, "java", "default-jdk-headless")
	const jar = "/usr/share/java/zookeeper.jar"
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("%s is missing (apt-get install zookeeper): case skipped", jar)
	}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.CommandContext(ctx, java, "-Xmx64m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.clientPortAddress=127.0.0.1", "-cp", jar, "org.apache.zookeeper.server.ZooKeeperServerMain", port, t.TempDir())
	livechild.StartServer(t, cmd)
	waitTCP(t, addr, 30*time.Second)
	return cmd.Process.Pid
}

// startTomcat runs Debian's Tomcat 10 (its jars, with java) with one
// loopback HTTP connector and a static page, asks for the page a few
// times, and returns its pid.
func startTomcat(ctx context.Context, t testing.TB) int {
	java := lookPath(t, "java", "default-jdk-headless")
	const home = "/usr/share/tomcat10"
	if _, err := os.Stat(filepath.Join(home, "bin", "bootstrap.jar")); err != nil {
		t.Skipf("%s is missing (apt-get install tomcat10): case skipped", home)
	}
	base := t.TempDir()
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	for _, d := range []string{"conf", "logs", "temp", "work", "webapps/ROOT"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	webXML, err := os.ReadFile(filepath.Join(home, "etc", "web.xml"))
	if err != nil {
		t.Skipf("tomcat10's web.xml: %v: case skipped", err)
	}
	files := map[string]string{
		"conf/web.xml": string(webXML),
		"conf/server.xml": `<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="` + port + `" address="` + host + `" protocol="HTTP/1.1" connectionTimeout="20000"/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/>
    </Engine>
  </Service>
</Server>
`,
		"webapps/ROOT/index.html": "judged\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, java, "-Xmx64m", "-XX:+UseSerialGC", "-Dcatalina.home="+home, "-Dcatalina.base="+base,
		"-Djava.io.tmpdir="+filepath.Join(base, "temp"),
		"-cp", filepath.Join(home, "bin", "bootstrap.jar")+":"+filepath.Join(home, "bin", "tomcat-juli.jar"),
		"org.apache.catalina.startup.Bootstrap", "start")
	livechild.StartServer(t, cmd)
	waitHTTP(t, "http://"+addr+"/", 60*time.Second)
	for range 5 {
		if resp, err := http.Get("http://" + addr + "/"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return cmd.Process.Pid
}

func waitTCP(t testing.TB, addr string, within time.Duration) {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens on %s after %v", addr, within)
}

// jcmdThreads captures a JVM's threads with `jcmd PID Thread.print -l`.
func jcmdThreads(ctx context.Context, t testing.TB, pid int) []byte {
	t.Helper()
	jcmd := lookPath(t, "jcmd", "default-jdk-headless")
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, jcmd, fmt.Sprint(pid), "Thread.print", "-l")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("jcmd %d Thread.print -l: %v\n%s", pid, err, out.Bytes())
	}
	return out.Bytes()
}
