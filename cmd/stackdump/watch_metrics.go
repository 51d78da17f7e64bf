package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/stackdump/stackdump/analyze"
)

// Bounds on the series one target can make, whatever it sends: states
// past maxMetricStates are summed into "other", and label values are cut
// at maxLabelBytes.
const (
	maxMetricStates = 24
	maxLabelBytes   = 200
	otherState      = "other"
)

// watchMetrics are watch's Prometheus metrics, in their own registry (the
// process's default registry is left alone). Per target they make at most
// 19 + maxMetricStates + 2×top series, and two more in all (the round time and the rounds behind).
type watchMetrics struct {
	reg        *prometheus.Registry
	goroutines *prometheus.GaugeVec
	byState    *prometheus.GaugeVec
	groups     *prometheus.GaugeVec
	suspects   *prometheus.GaugeVec
	leaked     *prometheus.GaugeVec
	up         *prometheus.GaugeVec
	duration   *prometheus.GaugeVec
	bytes      *prometheus.GaugeVec
	pause      *prometheus.GaugeVec
	predicted  *prometheus.GaugeVec
	captures   *prometheus.CounterVec
	errors     *prometheus.CounterVec
	restarts   *prometheus.CounterVec
	// findings counts analyze's verdicts by kind; findingRoutines is the
	// routines each of the first --top is about.
	findings        *prometheus.GaugeVec
	findingRoutines *prometheus.GaugeVec
	round           prometheus.Gauge
	// roundsBehind counts the rounds that took longer than --every.
	roundsBehind prometheus.Counter

	mu   sync.Mutex
	sets map[string]*metricSets // per target, the label values set last

	// exposition is the metrics encoded at the end of the last round (or
	// at the first scrape before one): /metrics writes it as it is, so a
	// scrape while a round parses 50 captures costs no gathering.
	exposition atomic.Pointer[[]byte]
	encodeMu   sync.Mutex // one encoding at a time
}

// metricSets are the variable label values one target's series have now,
// so that those a new snapshot no longer has are deleted.
type metricSets struct {
	states   map[string]bool
	groups   map[[2]string]bool
	findings map[[3]string]bool // kind, confidence, where
}

func newWatchMetrics() *watchMetrics {
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append([]string{"target"}, labels...))
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"target"})
	}
	m := &watchMetrics{
		reg:             prometheus.NewRegistry(),
		goroutines:      gauge("stackdump_goroutines", "Goroutines (or threads) in the target's last snapshot."),
		byState:         gauge("stackdump_goroutines_by_state", "Goroutines in the last snapshot by state (the most common states; the rest summed as \"other\").", "state"),
		groups:          gauge("stackdump_group_goroutines", "Goroutines in each of the target's largest groups of identical stacks (at most --top per target).", "group", "func"),
		suspects:        gauge("stackdump_leak_suspects", "Groups that grew in each of the last --leak-after snapshots."),
		leaked:          gauge("stackdump_leaked_goroutines", "Goroutines in (leaked) states in the last snapshot: proven leaks found by the Go runtime."),
		up:              gauge("stackdump_target_up", "1 when the target's last capture succeeded, else 0."),
		duration:        gauge("stackdump_capture_duration_seconds", "Wall time of the target's last capture, successful or not."),
		bytes:           gauge("stackdump_capture_bytes", "Bytes received in the target's last capture."),
		pause:           gauge("stackdump_capture_pause_seconds", "Longest stop-the-world pause the last capture cost the target, as well as it is known: measured by stackdump's endpoint, else debug=2's answer wait (an upper bound), else predicted."),
		predicted:       gauge("stackdump_capture_pause_predicted_seconds", "Longest stop-the-world pause the last capture was predicted to cost the target before it was taken (Go targets over HTTP)."),
		captures:        counter("stackdump_captures_total", "Captures attempted."),
		errors:          counter("stackdump_capture_errors_total", "Captures that failed."),
		restarts:        counter("stackdump_target_restarts_total", "Restarts of the target watch saw (its goroutine ids started again): the target's history (leak suspects, changes since first) starts again at each."),
		findings:        gauge("stackdump_findings", "Verdicts stackdump analyze makes on the target's last snapshot with states, by kind (deadlock, proven-leak, blocked, likely-leak, stuck, contention, growth, leak-suspect); every kind is present, 0 when none.", "kind"),
		findingRoutines: gauge("stackdump_finding_routines", "Goroutines (JVM: threads) each of the target's first --top findings is about, by kind, confidence (certain, likely, possible) and where (the functions and thread names of its subject).", "kind", "confidence", "where"),
		round: prometheus.NewGauge(prometheus.GaugeOpts{Name: "stackdump_watch_round_duration_seconds",
			Help: "Wall time of watch's last round over every target."}),
		roundsBehind: prometheus.NewCounter(prometheus.CounterOpts{Name: "stackdump_watch_rounds_behind_total",
			Help: "Rounds that took longer than --every: the next one started late."}),
		sets: map[string]*metricSets{},
	}
	m.reg.MustRegister(m.goroutines, m.byState, m.groups, m.suspects, m.leaked, m.up,
		m.duration, m.bytes, m.pause, m.predicted, m.captures, m.errors, m.restarts,
		m.findings, m.findingRoutines, m.round, m.roundsBehind)
	return m
}

// snapshotMetrics is what one successful capture of a target gave.
type snapshotMetrics struct {
	total     int64
	states    map[string]int64 // goroutines by state, every group
	rows      []watchRow       // the largest groups, at most --top
	suspects  int
	leaked    int64
	pause     time.Duration // 0: unknown
	hasPause  bool
	predicted time.Duration // 0: no prediction
	// findings are analyze's verdicts on the last snapshot with states,
	// analysed set once there is one.
	findings []analyze.Finding
	analysed bool
}

// captured records a target's capture: its cost, and snap when it succeeded
// (nil when it failed).
func (m *watchMetrics) captured(target string, elapsed time.Duration, received int64, snap *snapshotMetrics) {
	m.captures.WithLabelValues(target).Inc()
	m.duration.WithLabelValues(target).Set(elapsed.Seconds())
	m.bytes.WithLabelValues(target).Set(float64(received))
	if snap == nil {
		m.errors.WithLabelValues(target).Inc()
		m.up.WithLabelValues(target).Set(0)
		m.dropSnapshot(target)
		return
	}
	m.errors.WithLabelValues(target).Add(0)   // present from the start, for rate()
	m.restarts.WithLabelValues(target).Add(0) // and for increase()
	m.up.WithLabelValues(target).Set(1)
	m.goroutines.WithLabelValues(target).Set(float64(snap.total))
	m.suspects.WithLabelValues(target).Set(float64(snap.suspects))
	m.leaked.WithLabelValues(target).Set(float64(snap.leaked))
	if snap.hasPause {
		m.pause.WithLabelValues(target).Set(snap.pause.Seconds())
	} else {
		m.pause.DeleteLabelValues(target)
	}
	if snap.predicted > 0 {
		m.predicted.WithLabelValues(target).Set(snap.predicted.Seconds())
	} else {
		m.predicted.DeleteLabelValues(target)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.sets[target]
	if old == nil {
		old = &metricSets{}
	}
	now := &metricSets{states: map[string]bool{}, groups: map[[2]string]bool{}, findings: map[[3]string]bool{}}
	if snap.analysed {
		kinds := map[analyze.FindingKind]int{}
		for _, f := range snap.findings {
			kinds[f.Kind]++
		}
		for _, k := range analyze.FindingKinds() {
			m.findings.WithLabelValues(target, string(k)).Set(float64(kinds[k]))
		}
		sums := map[[3]string]int64{}
		for _, f := range snap.findings[:min(len(snap.findings), maxFindingSeries(len(snap.rows)))] {
			sums[[3]string{string(f.Kind), string(f.Confidence), labelValue(f.Subject.Where())}] += f.Subject.Count
		}
		for k, n := range sums {
			now.findings[k] = true
			m.findingRoutines.WithLabelValues(target, k[0], k[1], k[2]).Set(float64(n))
		}
	}
	for state, n := range boundStates(snap.states) {
		now.states[state] = true
		m.byState.WithLabelValues(target, state).Set(float64(n))
	}
	for _, r := range snap.rows {
		k := [2]string{r.Key, labelValue(r.fn)}
		now.groups[k] = true
		m.groups.WithLabelValues(target, k[0], k[1]).Set(float64(r.Count))
	}
	for state := range old.states {
		if !now.states[state] {
			m.byState.DeleteLabelValues(target, state)
		}
	}
	for k := range old.groups {
		if !now.groups[k] {
			m.groups.DeleteLabelValues(target, k[0], k[1])
		}
	}
	for k := range old.findings {
		if !now.findings[k] {
			m.findingRoutines.DeleteLabelValues(target, k[0], k[1], k[2])
		}
	}
	m.sets[target] = now
}

// maxFindingSeries is how many findings of a target have a
// stackdump_finding_routines series: as many as its group rows (--top).
func maxFindingSeries(top int) int { return max(top, 1) }

// dropSnapshot deletes the series that describe target's last snapshot
// (goroutines, states, groups, suspects, leaked, pauses): its capture
// failed, and a last value kept beside stackdump_target_up 0 would read as
// current. The capture's own series (up, duration, bytes, counters) stay.
func (m *watchMetrics) dropSnapshot(target string) {
	for _, v := range []*prometheus.GaugeVec{m.goroutines, m.suspects, m.leaked, m.pause, m.predicted} {
		v.DeleteLabelValues(target)
	}
	for _, k := range analyze.FindingKinds() {
		m.findings.DeleteLabelValues(target, string(k))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.sets[target]; old != nil {
		for state := range old.states {
			m.byState.DeleteLabelValues(target, state)
		}
		for k := range old.groups {
			m.groups.DeleteLabelValues(target, k[0], k[1])
		}
		for k := range old.findings {
			m.findingRoutines.DeleteLabelValues(target, k[0], k[1], k[2])
		}
	}
	delete(m.sets, target)
}

// boundStates keeps the maxMetricStates-1 most common states (label values
// cut to maxLabelBytes) and sums the rest as "other".
func boundStates(states map[string]int64) map[string]int64 {
	type sc struct {
		state string
		n     int64
	}
	all := make([]sc, 0, len(states))
	for s, n := range states {
		all = append(all, sc{s, n})
	}
	slices.SortFunc(all, func(a, b sc) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.state, b.state)) })
	out := make(map[string]int64, min(len(all), maxMetricStates))
	for i, s := range all {
		name := labelValue(s.state)
		if name == "" {
			name = "unknown"
		}
		if i >= maxMetricStates-1 && len(all) > maxMetricStates {
			name = otherState
		}
		out[name] += s.n
	}
	return out
}

// labelValue cuts s to at most maxLabelBytes, on a rune boundary.
func labelValue(s string) string {
	if len(s) <= maxLabelBytes {
		return s
	}
	return strings.ToValidUTF8(s[:maxLabelBytes], "") // drops a cut rune
}

// textFormat is the exposition format /metrics serves: Prometheus' text
// format, which every scraper accepts.
var textFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

// publish gathers and encodes the metrics for the scrapes to come; watch
// calls it at the end of each round, when every target's capture is
// recorded.
func (m *watchMetrics) publish() error {
	m.encodeMu.Lock()
	defer m.encodeMu.Unlock()
	fams, err := m.reg.Gather()
	if err != nil {
		return fmt.Errorf("gathering metrics: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, textFormat)
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("encoding metric %s: %w", f.GetName(), err)
		}
	}
	b := buf.Bytes()
	m.exposition.Store(&b)
	return nil
}

// ServeHTTP answers /metrics with the exposition published last.
func (m *watchMetrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := m.exposition.Load()
	if b == nil {
		if err := m.publish(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b = m.exposition.Load()
	}
	w.Header().Set("Content-Type", string(textFormat))
	w.Header().Set("Content-Length", strconv.Itoa(len(*b)))
	w.Write(*b)
}

// serve serves /metrics on ln until ctx ends; the returned function waits
// for the server to stop.
func (m *watchMetrics) serve(ctx context.Context, ln net.Listener, errLog io.Writer) (wait func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(errLog, "stackdump: metrics server: %v\n", err)
		}
	}()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
	}()
	return func() { <-stopped; <-done }
}
