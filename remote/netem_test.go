package remote

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The latency test runs a dump server in a network namespace of its own,
// joined to the test's namespace by a veth pair whose both ends delay
// packets by 100 ms (tc netem), so every round trip costs 200 ms. The
// addresses are TEST-NET-1 (RFC 5737) on that private link only.
const (
	netemNS      = "stackdump-netem"
	netemHost    = "192.0.2.1"
	netemPeer    = "192.0.2.2"
	netemDelay   = 100 * time.Millisecond // each way
	netemDumpLen = 24 << 20
)

// TestMain's helper mode: serve a large debug=2-like dump on the address
// in STACKDUMP_NETEM_SERVE and print the port.
func init() {
	addr := os.Getenv("STACKDUMP_NETEM_SERVE")
	if addr == "" {
		return
	}
	l, err := net.Listen("tcp", addr+":0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("port", l.Addr().(*net.TCPAddr).Port)
	body := netemBody()
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	}))
	os.Exit(0)
}

// netemBody is the served dump: one goroutine repeated up to netemDumpLen.
func netemBody() []byte {
	block := []byte("goroutine 7 [chan receive]:\nmain.worker(0xc000010000)\n\t/src/main.go:42 +0x1d\ncreated by main.main in goroutine 1\n\t/src/main.go:30 +0x5a\n\n")
	body := make([]byte, 0, netemDumpLen)
	for len(body)+len(block) <= netemDumpLen {
		body = append(body, block...)
	}
	return body
}

func run(t *testing.T, name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// setupNetem builds the namespace and the delayed veth pair, or skips.
func setupNetem(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no network namespace test")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: cannot build the delayed link", tool)
		}
	}
	run(t, "ip", "netns", "del", netemNS) // left over from a killed run
	run(t, "ip", "link", "del", "sdnetem0")
	if err := run(t, "ip", "netns", "add", netemNS); err != nil {
		t.Skipf("network namespaces are not available here (need root and CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		run(t, "ip", "link", "del", "sdnetem0")
		run(t, "ip", "netns", "del", netemNS)
	})
	steps := [][]string{
		{"ip", "link", "add", "sdnetem0", "type", "veth", "peer", "name", "sdnetem1"},
		{"ip", "link", "set", "sdnetem1", "netns", netemNS},
		{"ip", "addr", "add", netemHost + "/30", "dev", "sdnetem0"},
		{"ip", "link", "set", "sdnetem0", "up"},
		{"ip", "netns", "exec", netemNS, "ip", "addr", "add", netemPeer + "/30", "dev", "sdnetem1"},
		{"ip", "netns", "exec", netemNS, "ip", "link", "set", "sdnetem1", "up"},
		{"ip", "netns", "exec", netemNS, "ip", "link", "set", "lo", "up"},
		{"tc", "qdisc", "add", "dev", "sdnetem0", "root", "netem", "delay", netemDelay.String()},
		{"ip", "netns", "exec", netemNS, "tc", "qdisc", "add", "dev", "sdnetem1", "root", "netem", "delay", netemDelay.String()},
	}
	for _, s := range steps {
		if err := run(t, s[0], s[1:]...); err != nil {
			t.Skipf("cannot build the delayed link: %v", err)
		}
	}
}

// TestHighLatencyTransfer streams a 24 MiB dump over a link with a 200 ms
// round trip to a consumer that is slower than the link (it pauses after
// every 256 KiB, as a parser writing compressed output might). The pump
// keeps reading while the consumer pauses, so the transfer overlaps the
// consumer's work; the test checks every byte arrives and logs both times
// (the speed itself is for benchmarks, not for assertions).
func TestHighLatencyTransfer(t *testing.T) {
	setupNetem(t)
	srv := exec.Command("ip", "netns", "exec", netemNS, os.Args[0], "-test.run=^$")
	srv.Env = append(os.Environ(), "STACKDUMP_NETEM_SERVE="+netemPeer)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "port ")
	if !ok {
		t.Fatalf("server in the namespace did not start: %q", line)
	}
	tg, err := ParseTarget("http://"+netemPeer+":"+port+"/debug/pprof/goroutine", "")
	if err != nil {
		t.Fatal(err)
	}
	consume := func(readAhead int) (time.Duration, int64) {
		start := time.Now()
		s, err := Open(context.Background(), tg, Options{ReadAhead: readAhead, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		buf := make([]byte, 256<<10)
		var n int64
		for {
			m, err := io.ReadFull(s, buf)
			n += int64(m)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond) // the consumer's own work
		}
		return time.Since(start), n
	}
	elapsed, n := consume(64 << 20)
	if want := int64(len(netemBody())); n != want {
		t.Errorf("received %d bytes over the delayed link, want %d", n, want)
	}
	small, _ := consume(pumpChunk)
	work := time.Duration(netemDumpLen/(256<<10)) * 2 * time.Millisecond
	t.Logf("24 MiB over a 200 ms RTT link: %v with 64 MiB read-ahead, %v with 256 KiB; consumer work alone %v", elapsed.Round(time.Millisecond), small.Round(time.Millisecond), work)
}
