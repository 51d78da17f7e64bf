package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// startParkedChild starts this test binary as a child serving
// net/http/pprof with n goroutines parked in deepPark (see
// STACKDUMP_TRUNC_CHILD) and returns its address.
func startParkedChild(t *testing.T, n int) string {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "STACKDUMP_TRUNC_CHILD="+strconv.Itoa(n))
	return startAddrChild(t, child)
}

// startWatch runs the watch command with args until the test ends.
func startWatch(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCommand()
	var stderr bytes.Buffer
	cmd.SetOut(io.Discard)
	cmd.SetErr(&stderr)
	cmd.SetArgs(append([]string{"watch"}, args...))
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v\n%s", err, stderr.String())
		}
	})
}

// TestWatchPrometheus scrapes watch's /metrics with a real Prometheus
// server (Debian's prometheus package) and reads the goroutine counts of
// two live child processes back through its query API.
func TestWatchPrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (Debian: apt-get install prometheus); skipping the scrape test")
	}
	if testing.Short() {
		t.Skip("-short: skipping the Prometheus scrape test")
	}
	parked := map[string]int{startParkedChild(t, 40): 40, startParkedChild(t, 90): 90}
	metricsAddr, promAddr := closedAddr(t), closedAddr(t)
	args := []string{"--every", "200ms", "--metrics", metricsAddr, "--json"}
	for addr := range parked {
		args = append(args, addr)
	}
	startWatch(t, args...)

	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: stackdump
    static_configs:
      - targets: [%q]
`, metricsAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	prom := exec.CommandContext(ctx, bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr)
	var promLog bytes.Buffer
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); prom.Wait() }()

	// Wait until Prometheus has scraped both targets' counts.
	query := func(q string) map[string]float64 {
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Status string `json:"status"`
			Data   struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  [2]any            `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
			return nil
		}
		out := map[string]float64{}
		for _, s := range r.Data.Result {
			v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
			out[s.Metric["target"]] = v
		}
		return out
	}
	var totals, workers map[string]float64
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		totals = query(`stackdump_goroutines{job="stackdump"}`)
		workers = query(`sum by (target) (stackdump_group_goroutines{func=~".*[.]deepPark"})`)
		if len(totals) == 2 && len(workers) == 2 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if len(totals) != 2 || len(workers) != 2 {
		t.Fatalf("Prometheus returned goroutine counts %v and deepPark groups %v, want both children's\nprometheus log:\n%s", totals, workers, promLog.String())
	}
	for addr, n := range parked {
		if workers[addr] != float64(n) {
			t.Errorf("%s: Prometheus has %v deepPark goroutines, want %d", addr, workers[addr], n)
		}
		if totals[addr] < float64(n) || totals[addr] > float64(n+20) {
			t.Errorf("%s: Prometheus has %v goroutines, want %d parked plus the runtime's few", addr, totals[addr], n)
		}
	}
}
