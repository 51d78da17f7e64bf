package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stackdump/stackdump/dedupe"
)

// rotatingServer answers each debug=2 request with the next of files (real dumps from testdata/go), so that the groups and states change
// from one snapshot to the next.
func rotatingServer(t *testing.T, files ...string) *httptest.Server {
	var n atomic.Int64
	var bodies [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/pprof/goroutine" || r.URL.Query().Get("debug") != "2" {
			http.NotFound(w, r) // the endpoint probe, and debug=1 (a capture then takes debug=2 as it is)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(bodies[(n.Add(1)-1)%int64(len(bodies))])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// scrape GETs url and parses the text exposition.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// series returns the family's metrics whose target label is target.
func series(fams map[string]*dto.MetricFamily, name, target string) []*dto.Metric {
	var out []*dto.Metric
	if f := fams[name]; f != nil {
		for _, m := range f.Metric {
			if label(m, "target") == target {
				out = append(out, m)
			}
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	return -1
}

// one returns the value of the family's only series for target.
func one(t *testing.T, fams map[string]*dto.MetricFamily, name, target string) float64 {
	t.Helper()
	s := series(fams, name, target)
	if len(s) != 1 {
		t.Fatalf("%d %s series for %s, want 1", len(s), name, target)
	}
	return value(s[0])
}

// TestWatchMetrics runs watch rounds over three targets (one whose dumps
// change every time, among them a Go 1.26 dump with (leaked) goroutines; one
// that leaks; one unreachable) and scrapes /metrics after each round.
func TestWatchMetrics(t *testing.T) {
	files := []string{"../../testdata/go/demo_go126.txt", "../../testdata/go/leak_go126.txt", "../../testdata/go/debug2_go126.txt", "../../testdata/go/sigquit_go126.txt"}
	rot := rotatingServer(t, files...)
	grow := growingServer(t, 4)
	down := closedAddr(t)
	const top = 3
	cmd := newWatchCommand()
	cmd.SetErr(new(strings.Builder))
	o := watchOptions{captureOptions: captureOptions{concurrency: 2, mode: "full", by: "stack", retries: -1, timeout: time.Minute, connectTimeout: 5 * time.Second, maxBytes: 2 << 30}, top: top, leakAfter: 2}
	w, err := newWatcher(cmd, []string{rot.URL, grow.URL, down}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	w.metrics = newWatchMetrics()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := w.metrics.serve(ctx, ln, os.Stderr)
	defer func() { cancel(); wait() }()
	url := "http://" + ln.Addr().String() + "/metrics"

	for round := 1; round <= len(files); round++ {
		w.round(ctx)
		fams := scrape(t, url)
		for name := range fams {
			if !strings.HasPrefix(name, "stackdump_") {
				t.Errorf("metric %s: watch's registry should hold only stackdump's metrics", name)
			}
		}
		// The rotating target: this round's dump, its groups and leaks.
		dump := readDumpFile(t, files[round-1])[0]
		var leaked int64
		for _, r := range dump.Routines {
			if r.Leaked {
				leaked += r.Count
			}
		}
		keys := map[string]bool{}
		for _, g := range dedupe.Group(dump, dedupe.Options{}) {
			keys[g.Key] = true
		}
		if got := one(t, fams, "stackdump_goroutines", rot.URL); got != float64(dump.Total) {
			t.Errorf("round %d: stackdump_goroutines %v, want the dump's %d", round, got, dump.Total)
		}
		if got := one(t, fams, "stackdump_leaked_goroutines", rot.URL); got != float64(leaked) {
			t.Errorf("round %d: stackdump_leaked_goroutines %v, want %d", round, got, leaked)
		}
		if files[round-1] == files[1] && leaked == 0 {
			t.Errorf("%s has no (leaked) goroutine", files[1])
		}
		groups := series(fams, "stackdump_group_goroutines", rot.URL)
		if len(groups) == 0 || len(groups) > top {
			t.Errorf("round %d: %d group series, want 1 to --top %d", round, len(groups), top)
		}
		for _, g := range groups {
			if !keys[label(g, "group")] {
				t.Errorf("round %d: group series %s (%s) is not in this round's dump: older series must be deleted", round, label(g, "group"), label(g, "func"))
			}
		}
		var byState float64
		states := series(fams, "stackdump_goroutines_by_state", rot.URL)
		for _, s := range states {
			byState += value(s)
		}
		if byState != float64(dump.Total) || len(states) > maxMetricStates {
			t.Errorf("round %d: %d state series summing to %v, want at most %d summing to %d", round, len(states), byState, maxMetricStates, dump.Total)
		}

		// The leaking target.
		var worker float64
		for _, g := range series(fams, "stackdump_group_goroutines", grow.URL) {
			if strings.HasSuffix(label(g, "func"), ".watchedWorker") {
				worker = value(g)
			}
		}
		if worker != float64(4*round) {
			t.Errorf("round %d: watchedWorker group %v, want %d", round, worker, 4*round)
		}
		// Suspects need leakAfter+1 = 3 snapshots. The target is this test
		// process, whose other goroutines may grow too: at least one.
		if n := one(t, fams, "stackdump_leak_suspects", grow.URL); round < 3 && n != 0 || round >= 3 && n < 1 {
			t.Errorf("round %d: %v leak suspects", round, n)
		}

		// The unreachable target.
		if got := one(t, fams, "stackdump_capture_errors_total", down); got != float64(round) {
			t.Errorf("round %d: %v errors for %s", round, got, down)
		}
		if one(t, fams, "stackdump_target_up", down) != 0 || one(t, fams, "stackdump_target_up", grow.URL) != 1 {
			t.Errorf("round %d: stackdump_target_up wrong", round)
		}
		if len(series(fams, "stackdump_goroutines", down)) != 0 {
			t.Errorf("round %d: an unreachable target has a goroutine count", round)
		}
		if one(t, fams, "stackdump_capture_bytes", rot.URL) <= 0 || one(t, fams, "stackdump_capture_duration_seconds", grow.URL) <= 0 {
			t.Errorf("round %d: capture bytes or duration missing", round)
		}
	}
	if w.rounds != len(files) {
		t.Errorf("%d rounds", w.rounds)
	}
}

// TestBoundStates: however many states a target reports, at most
// maxMetricStates series, summing to the total.
func TestBoundStates(t *testing.T) {
	states := map[string]int64{}
	var total int64
	for i := range 500 {
		states[fmt.Sprintf("state %d %s", i, strings.Repeat("x", i))] = int64(i + 1)
		total += int64(i + 1)
	}
	got := boundStates(states)
	var sum int64
	for s, n := range got {
		sum += n
		if len(s) > maxLabelBytes {
			t.Errorf("label value of %d bytes", len(s))
		}
	}
	if len(got) > maxMetricStates || sum != total || got[otherState] == 0 {
		t.Errorf("%d states summing to %d (other %d), want at most %d summing to %d", len(got), sum, got[otherState], maxMetricStates, total)
	}
}

// TestWatchMetricsServePublished: /metrics answers with what was published
// at the end of the last round, not with what captures record while a
// round runs (a scrape then costs no gathering behind the parsers).
func TestWatchMetricsServePublished(t *testing.T) {
	m := newWatchMetrics()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := m.serve(ctx, ln, os.Stderr)
	defer func() { cancel(); wait() }()
	url := "http://" + ln.Addr().String() + "/metrics"

	m.captured("a", time.Second, 100, &snapshotMetrics{total: 7, states: map[string]int64{"chan receive": 7}})
	// Before any round ends, the first scrape encodes what there is.
	if got := one(t, scrape(t, url), "stackdump_goroutines", "a"); got != 7 {
		t.Fatalf("first scrape: stackdump_goroutines %v, want 7", got)
	}
	m.captured("a", time.Second, 100, &snapshotMetrics{total: 9, states: map[string]int64{"chan receive": 9}})
	if got := one(t, scrape(t, url), "stackdump_goroutines", "a"); got != 7 {
		t.Errorf("mid-round scrape: stackdump_goroutines %v, want the published 7", got)
	}
	if err := m.publish(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, scrape(t, url), "stackdump_goroutines", "a"); got != 9 {
		t.Errorf("after publish: stackdump_goroutines %v, want 9", got)
	}
}
