package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
)

// TestOpenDocumentBudgetWithoutCounts: a target that serves debug=2 and
// the trace but no debug=1 (a proxy that passes only some requests) gives
// no count to predict a traceback's pause by: under a pause budget the
// trace snapshot is taken, never debug=2.
func TestOpenDocumentBudgetWithoutCounts(t *testing.T) {
	parkedInRemoteTest(t, 20)
	var mu sync.Mutex
	var asked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("debug") == "1" {
			http.NotFound(w, r)
			return
		}
		pprof.Index(w, r)
	})
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	doc, err := OpenDocument(context.Background(), tg, Options{MaxPause: 10 * time.Millisecond}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := readDocument(t, doc)
	mu.Lock()
	defer mu.Unlock()
	if !doc.OverBudget || !slices.Equal(doc.Methods, []string{"trace"}) || d.Total < 20 || slices.Contains(asked, "debug=2") {
		t.Errorf("methods %v, over budget %v, %d goroutines, asked %v; want the trace alone, no debug=2", doc.Methods, doc.OverBudget, d.Total, asked)
	}
}

// TestOpenDocumentBudgetNothingWithin: a target that serves neither
// debug=1 nor the trace gives nothing within a pause budget: the error is
// ErrPauseBudget, wraps the trace's failure and says which option lifts
// the bound; debug=2 is never asked for.
func TestOpenDocumentBudgetNothingWithin(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("debug") == "1" {
			http.NotFound(w, r)
			return
		}
		pprof.Index(w, r) // no pprof.Trace: the trace is not served
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	_, err := OpenDocument(context.Background(), tg, Options{MaxPause: 10 * time.Millisecond}, formats.ReadOptions{})
	if !errors.Is(err, ErrPauseBudget) || !errors.Is(err, ErrNoTrace) || !strings.HasSuffix(err.Error(), "(Options.MaxPause 0: no bound)") {
		t.Errorf("err = %v, want ErrPauseBudget wrapping ErrNoTrace, naming Options.MaxPause", err)
	}
	t.Log(err)
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(asked, "/debug/pprof/goroutine?debug=2") {
		t.Errorf("asked %v: debug=2 under a budget it cannot be predicted within", asked)
	}
}

// TestPauseModelRule holds the learning rule of PauseModel
// (docs/modes.md): the prior before any traceback, the median of the last
// five measured costs after, and predictions widened by the model's worst
// recent shortfall before they are compared with the budget.
func TestPauseModelRule(t *testing.T) {
	var m PauseModel
	if m.CostPerKiB() != PriorFullCostPerKiB || m.Measured() != 0 || m.Error() != 1 {
		t.Fatalf("zero model: cost %v, measured %d, error %v; want the prior, none, 1", m.CostPerKiB(), m.Measured(), m.Error())
	}
	if p := m.Predict(200 << 10); p != 200*PriorFullCostPerKiB {
		t.Errorf("200 KiB at the prior: %v, want %v", p, 200*PriorFullCostPerKiB)
	}
	if !m.Fits(10*time.Millisecond, 10*time.Millisecond) || m.Fits(10*time.Millisecond+1, 10*time.Millisecond) {
		t.Error("with no error, a prediction fits exactly up to the budget")
	}

	// One traceback of 100 KiB measured at 1.5 ms (predicted 5 ms by the prior).
	m.Learn(FullPause{Bytes: 100 << 10, Predicted: 5 * time.Millisecond, Pause: 1500 * time.Microsecond})
	if m.CostPerKiB() != 15*time.Microsecond || m.Measured() != 1 || m.Error() != 1 {
		t.Errorf("after one traceback: cost %v, measured %d, error %v; want 15µs, 1, 1 (it was overestimated)", m.CostPerKiB(), m.Measured(), m.Error())
	}
	if p := m.Predict(400 << 10); p != 6*time.Millisecond {
		t.Errorf("400 KiB at the measured cost: %v, want 6ms", p)
	}

	// One slow traceback among fast ones does not move the median: the
	// target is not shut out of full captures by a busy moment.
	for _, us := range []time.Duration{100, 12, 11} {
		m.Learn(FullPause{Bytes: 1 << 10, Pause: us * time.Microsecond})
	}
	if m.CostPerKiB() != 13500*time.Nanosecond { // median of 15, 100, 12, 11
		t.Errorf("median of four: %v, want 13.5µs", m.CostPerKiB())
	}
	m.Learn(FullPause{Bytes: 1 << 10, Pause: 13 * time.Microsecond})
	m.Learn(FullPause{Bytes: 1 << 10, Pause: 14 * time.Microsecond}) // the first, 15, is forgotten
	if m.CostPerKiB() != 13*time.Microsecond || m.Measured() != pauseSamples {
		t.Errorf("median of the last five (100, 12, 11, 13, 14): %v, %d measured; want 13µs, 5", m.CostPerKiB(), m.Measured())
	}

	// A prediction that fell short by 3× widens the next ones by 3×.
	m.Learn(FullPause{Bytes: 1 << 10, Predicted: 5 * time.Microsecond, Pause: 15 * time.Microsecond})
	if m.Error() != 3 {
		t.Fatalf("error %v, want 3", m.Error())
	}
	if m.Fits(4*time.Millisecond, 10*time.Millisecond) || !m.Fits(3*time.Millisecond, 10*time.Millisecond) {
		t.Error("with an error of 3, 4ms must not fit 10ms and 3ms must")
	}
	// Nothing measured teaches nothing.
	before := m
	m.Learn(FullPause{Bytes: 0, Pause: time.Second})
	m.Learn(FullPause{Bytes: 1 << 10})
	if m.Measured() != before.Measured() || m.CostPerKiB() != before.CostPerKiB() {
		t.Error("a traceback without a size or a pause was learned from")
	}
	// Measurements are forgotten PauseMemory captures after they were
	// made: a target measured slow once is tried at the prior again.
	slow := PauseModel{}
	slow.Learn(FullPause{Bytes: 1 << 10, Predicted: time.Microsecond, Pause: time.Millisecond})
	for range PauseMemory - 1 {
		slow.Tick()
	}
	if slow.Measured() != 1 || slow.Error() != 1000 {
		t.Errorf("after %d captures: %d measured, error %v; want the measurement kept", PauseMemory-1, slow.Measured(), slow.Error())
	}
	slow.Tick()
	if slow.Measured() != 0 || slow.Error() != 1 || slow.CostPerKiB() != PriorFullCostPerKiB {
		t.Errorf("after %d captures: %d measured, error %v, cost %v; want the prior again", PauseMemory, slow.Measured(), slow.Error(), slow.CostPerKiB())
	}
	var nilModel *PauseModel
	if nilModel.CostPerKiB() != PriorFullCostPerKiB || nilModel.Error() != 1 || nilModel.Measured() != 0 {
		t.Error("a nil model does not predict from the prior")
	}
}

// TestOpenDocumentLearnsPause: a real net/http/pprof target's traceback,
// measured from outside, teaches the model; the next capture's prediction
// is its size at the learned cost, and a model whose last prediction fell
// short takes the trace snapshot for a traceback that would otherwise fit.
func TestOpenDocumentLearnsPause(t *testing.T) {
	parkedInRemoteTest(t, 40)
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	var m PauseModel
	opts := Options{MaxPause: time.Second, Pauses: &m}
	doc, err := OpenDocument(context.Background(), tg, opts, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readDocument(t, doc)
	p, ok := doc.FullPause()
	if !ok || doc.OverBudget || p.Bytes != doc.TracebackBytes || p.Bytes <= 0 || p.Predicted != (&PauseModel{}).Predict(p.Bytes) || p.Pause != doc.observed || p.Measured {
		t.Fatalf("first capture: methods %v, over budget %v, pause %+v ok %v; want the traceback at the prior, its answer wait", doc.Methods, doc.OverBudget, p, ok)
	}
	m.Learn(p)
	doc, err = OpenDocument(context.Background(), tg, opts, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readDocument(t, doc)
	if want := m.Predict(doc.TracebackBytes); doc.FullPredicted != want || want == (&PauseModel{}).Predict(doc.TracebackBytes) {
		t.Errorf("second prediction %v, want %v at the learned %v/KiB (not the prior)", doc.FullPredicted, want, m.CostPerKiB())
	}

	// The last prediction fell short by 1000×: a traceback predicted far
	// within the budget is not taken.
	short := PauseModel{}
	short.Learn(FullPause{Bytes: 1 << 10, Predicted: time.Microsecond, Pause: time.Millisecond})
	opts.Pauses, opts.MaxPause = &short, 1000*short.Predict(doc.TracebackBytes)*9/10
	doc, err = OpenDocument(context.Background(), tg, opts, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readDocument(t, doc)
	if !doc.OverBudget || !slices.Equal(doc.Methods, []string{"debug1", "trace"}) || doc.FullError != 1000 {
		t.Errorf("methods %v, over budget %v, error %v; want the trace snapshot, the prediction widened 1000×", doc.Methods, doc.OverBudget, doc.FullError)
	}
	if _, ok := doc.FullPause(); ok {
		t.Error("a trace snapshot reported a traceback's pause")
	}
}

// TestPauseModelPIDStall: a pid: target's consistent snapshot teaches the
// model its stall per goroutine, which the next read predicts from, and
// leaves the traceback cost alone.
func TestPauseModelPIDStall(t *testing.T) {
	var m PauseModel
	if got := m.StallPerGoroutine(); got != 0 {
		t.Fatalf("zero model: stall %v, want 0 (goproc's prior)", got)
	}
	if got := (*PauseModel)(nil).StallPerGoroutine(); got != 0 {
		t.Fatalf("nil model: stall %v, want 0", got)
	}
	m.Learn(FullPause{PerGoroutine: 700 * time.Nanosecond, Predicted: 25 * time.Millisecond, Measured: true})
	if got := m.StallPerGoroutine(); got != 700*time.Nanosecond {
		t.Errorf("stall %v after a snapshot, want 700ns", got)
	}
	if m.Measured() != 0 || m.CostPerKiB() != PriorFullCostPerKiB {
		t.Errorf("a pid: snapshot changed the traceback model: %d measured, %v/KiB", m.Measured(), m.CostPerKiB())
	}
}
