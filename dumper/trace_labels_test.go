package dumper

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/labelsnap"
	"github.com/stackdump/stackdump/stack"
)

// labelledPark blocks on ch under labels; each call site is its own stack.
func labelledParkA(ch chan struct{}) { <-ch }
func labelledParkB(ch chan struct{}) { <-ch }
func labelledParkC(ch chan struct{}) { <-ch }

func startLabelled(wg *sync.WaitGroup, n int, labels []string, park func(chan struct{}), ch chan struct{}) {
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if labels == nil {
				park(ch)
				return
			}
			pprof.Do(context.Background(), pprof.Labels(labels...), func(context.Context) { park(ch) })
		}()
	}
}

// TestCaptureTraceLabels checks that pprof labels are joined from the
// goroutine profile by stack, and that goroutines whose stack is shared by
// different label sets are left unlabelled and reported.
func TestCaptureTraceLabels(t *testing.T) {
	needGo126(t, "trace mode")
	var wg sync.WaitGroup
	chA, chB, chC := make(chan struct{}), make(chan struct{}), make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a", "job", "sync"}, labelledParkA, chA)
	startLabelled(&wg, 10, nil, labelledParkB, chB)
	startLabelled(&wg, 5, []string{"tenant", "b"}, labelledParkC, chC)
	startLabelled(&wg, 5, []string{"tenant", "c"}, labelledParkC, chC)
	defer func() {
		close(chA)
		close(chB)
		close(chC)
		wg.Wait()
	}()
	waitParked(t, 30, "labelledPark")

	d, err := captureTrace(context.Background(), traceOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := labelCounts(d)
	want := map[string]int{
		"labelledParkA job=sync,tenant=a": 10,
		"labelledParkB ":                  10,
		"labelledParkC ":                  10, // b and c share the stack
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%d goroutines %q, want %d (all: %v)", counts[k], k, n, counts)
		}
	}
	var first stack.Labels
	for _, r := range d.Routines {
		if len(r.Labels) == 0 {
			continue
		}
		if first == nil {
			first = r.Labels
		} else if &first[0] != &r.Labels[0] {
			t.Errorf("goroutine %d: equal label sets not interned to one", r.ID)
		}
	}
	if !slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v, want labels listed: 10 goroutines' labels are unknown", d.Source.Capture.Missing)
	}
	if !hasWarning(d, "pprof labels of 10 goroutines on 1 stack(s) are unknown") {
		t.Errorf("no warning about the 10 ambiguous goroutines: %v", d.Warnings)
	}

	close(chC)
	chC = make(chan struct{})
	waitParked(t, 20, "labelledPark")
	d, err = captureTrace(context.Background(), traceOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if counts := labelCounts(d); counts["labelledParkA job=sync,tenant=a"] != 10 {
		t.Errorf("labels not joined: %v", counts)
	}
	if slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v lists labels, but every goroutine's labels are known", d.Source.Capture.Missing)
	}
}

// labelCounts counts the routines parked in a labelledPark function by
// function name and labels.
func labelCounts(d *stack.Dump) map[string]int {
	counts := make(map[string]int)
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if i := strings.Index(f.Func, "labelledPark"); i >= 0 {
				var ls []string
				for _, l := range r.Labels {
					ls = append(ls, l.Key+"="+l.Value)
				}
				counts[f.Func[i:]+" "+strings.Join(ls, ",")]++
				break
			}
		}
	}
	return counts
}

func hasWarning(d *stack.Dump, text string) bool {
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, text) {
			return true
		}
	}
	return false
}

// waitParked waits until n goroutines with a frame containing fn are
// blocked, per runtime.Stack.
func waitParked(t *testing.T, n int, fn string) {
	t.Helper()
	for try := 0; ; try++ {
		text := allStacks(t)
		parked := 0
		for _, r := range text {
			if r.State == "runnable" || r.State == "running" {
				continue
			}
			for _, f := range r.Frames() {
				if strings.Contains(f.Func, fn) {
					parked++
					break
				}
			}
		}
		if parked == n {
			return
		}
		if try == 200 {
			t.Fatalf("%d goroutines parked in %s, want %d", parked, fn, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTraceLabelsMatchPprof joins the labels of both sources, labelsnap's
// walk and runtime/pprof's debug=0 profile, into one trace dump of the
// same parked goroutines: every routine must get the same labels, and the
// same routines none.
func TestTraceLabelsMatchPprof(t *testing.T) {
	needGo126(t, "trace mode")
	var wg sync.WaitGroup
	chA, chB, chC := make(chan struct{}), make(chan struct{}), make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a", "job", "sync"}, labelledParkA, chA)
	startLabelled(&wg, 10, nil, labelledParkB, chB)
	startLabelled(&wg, 5, []string{"tenant", "b"}, labelledParkC, chC)
	startLabelled(&wg, 5, []string{"tenant", "c"}, labelledParkC, chC)
	defer func() {
		close(chA)
		close(chB)
		close(chC)
		wg.Wait()
	}()
	waitParked(t, 30, "labelledPark")
	rec, err := recordTrace(context.Background(), traceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.labels.err != nil {
		t.Fatal(rec.labels.err)
	}
	fast := rec.labels
	ix, err := profileLabels()
	if err != nil {
		t.Fatal(err)
	}
	tab := stack.NewTable()
	dFast, err := rec.decode(tab)
	if err != nil {
		t.Fatal(err)
	}
	rec.labels = &traceLabelSet{ix: ix, fromPprof: true}
	dPprof, err := rec.decode(tab)
	if err != nil {
		t.Fatal(err)
	}
	if len(dFast.Routines) != len(dPprof.Routines) {
		t.Fatalf("%d and %d routines from one trace", len(dFast.Routines), len(dPprof.Routines))
	}
	labelled := 0
	for i, r := range dFast.Routines {
		p := dPprof.Routines[i]
		if !slices.Equal(r.Labels, p.Labels) {
			t.Errorf("goroutine %d: labels %v from labelsnap, %v from runtime/pprof", r.ID, r.Labels, p.Labels)
		}
		if len(r.Labels) > 0 {
			labelled++
		}
	}
	if labelled < 10 {
		t.Errorf("%d routines labelled, want the 10 of labelledParkA at least", labelled)
	}
	if fast.fromPprof && supportsLabelsnap() {
		t.Error("labels came from runtime/pprof on a runtime labelsnap knows")
	}
	if !slices.Equal(dFast.Source.Capture.Missing, dPprof.Source.Capture.Missing) {
		t.Errorf("Missing %v from labelsnap, %v from runtime/pprof", dFast.Source.Capture.Missing, dPprof.Source.Capture.Missing)
	}
}

// supportsLabelsnap reports whether labelsnap reads this runtime's profile.
func supportsLabelsnap() bool {
	_, err := labelsnap.Take(stack.NewTable())
	return err == nil
}

// TestCaptureTraceWithoutLabels: in a process where no goroutine has
// labels (a child process, so that no other test's labelled goroutines
// are there), the walk says so; labels are not missing and no warning is
// given.
func TestCaptureTraceWithoutLabels(t *testing.T) {
	needGo126(t, "trace mode")
	if !runInChild(t, "TestCaptureTraceWithoutLabels") {
		return
	}
	var wg sync.WaitGroup
	ch := make(chan struct{})
	startLabelled(&wg, 20, nil, labelledParkB, ch)
	defer func() { close(ch); wg.Wait() }()
	waitParked(t, 20, "labelledPark")
	d, err := captureTrace(context.Background(), traceOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v lists labels: no goroutine has any, and the walk says so", d.Source.Capture.Missing)
	}
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "label") {
			t.Errorf("warning about labels: %s", w.Msg)
		}
	}
	for _, r := range d.Routines {
		if len(r.Labels) > 0 {
			t.Errorf("goroutine %d has labels %v", r.ID, r.Labels)
		}
	}
}

// TestTraceStreamMatchesDump: the routines written as they are made (the
// endpoint's and WriteFile's JSON and text) are the bytes the encoder
// writes from the dump with every routine in memory, labels included.
func TestTraceStreamMatchesDump(t *testing.T) {
	needGo126(t, "trace mode")
	var wg sync.WaitGroup
	ch := make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a"}, labelledParkA, ch)
	startLabelled(&wg, 10, nil, labelledParkB, ch)
	defer func() { close(ch); wg.Wait() }()
	waitParked(t, 20, "labelledPark")
	rec, err := recordTrace(context.Background(), traceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab := stack.NewTable()
	b, n, err := rec.decodeTrace(tab)
	if err != nil {
		t.Fatal(err)
	}
	d, s := rec.snapshot(b, n, tab)
	for _, f := range []output.Format{output.JSON, output.Text} {
		var streamed, whole bytes.Buffer
		if err := s.encode(context.Background(), &streamed, f, d); err != nil {
			t.Fatal(err)
		}
		full := *d
		s.fill(&full)
		if err := encodeDump(context.Background(), &whole, f, &full); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
			t.Errorf("%s: streamed output (%d bytes) differs from the dump's (%d bytes)", f, streamed.Len(), whole.Len())
		}
		if f == output.JSON && !bytes.Contains(streamed.Bytes(), []byte(`"tenant"`)) {
			t.Errorf("JSON has no labels")
		}
		if len(full.Routines) != n || n < 20 {
			t.Errorf("%d routines, want %d and the 20 parked", len(full.Routines), n)
		}
	}
}

// TestTraceModeFileAndEndpointKeepLabels takes trace-mode dumps through
// WriteFile (JSON+gzip) and the endpoint (?mode=trace, JSON and text), the
// paths that write routines as they are made, and reads them back: the
// parked goroutines are there with their labels.
func TestTraceModeFileAndEndpointKeepLabels(t *testing.T) {
	needGo126(t, "trace mode")
	var wg sync.WaitGroup
	ch := make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a", "job", "sync"}, labelledParkA, ch)
	startLabelled(&wg, 10, nil, labelledParkB, ch)
	defer func() { close(ch); wg.Wait() }()
	waitParked(t, 20, "labelledPark")
	check := func(what string, d *stack.Dump) {
		t.Helper()
		counts := labelCounts(d)
		if counts["labelledParkA job=sync,tenant=a"] != 10 || counts["labelledParkB "] != 10 {
			t.Errorf("%s: parked goroutines by labels %v, want 10 labelled and 10 not", what, counts)
		}
		if d.Source.Capture == nil || d.Source.Capture.Mode != "trace" || slices.Contains(d.Source.Capture.Missing, "labels") {
			t.Errorf("%s: capture %+v, want mode trace, labels not missing", what, d.Source.Capture)
		}
	}
	path := filepath.Join(t.TempDir(), "x.json.gz")
	if err := WriteFile(context.Background(), path, FileOptions{Capture: CaptureOptions{Mode: ModeTrace}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("reading %s: %d dumps, %v", path, len(dumps), err)
	}
	check("WriteFile", dumps[0])

	srv := httptest.NewServer(Handler(HandlerOptions{}))
	defer srv.Close()
	for _, format := range []string{"json", "text"} {
		resp, err := http.Get(srv.URL + "?mode=trace&format=" + format)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET ?mode=trace&format=%s: %d %v\n%s", format, resp.StatusCode, err, body)
		}
		if format == "text" {
			// Text has no capture metadata: check the routines only.
			if !bytes.Contains(body, []byte("labelledParkA")) {
				t.Errorf("text: no parked goroutine:\n%.2000s", body)
			}
			continue
		}
		dumps, err := formats.ReadAll(bytes.NewReader(body), formats.ReadOptions{})
		if err != nil || len(dumps) != 1 {
			t.Fatalf("reading the endpoint's %s: %d dumps, %v", format, len(dumps), err)
		}
		check("endpoint "+format, dumps[0])
	}
}

// TestCaptureTraceNoLabels: with NoLabels the goroutine profile is not
// taken (no pause of its own: only trace.Start's), labelled goroutines get
// none, and labels stay missing without a warning.
func TestCaptureTraceNoLabels(t *testing.T) {
	needGo126(t, "trace mode")
	var wg sync.WaitGroup
	ch := make(chan struct{})
	startLabelled(&wg, 10, []string{"tenant", "a"}, labelledParkA, ch)
	defer func() { close(ch); wg.Wait() }()
	waitParked(t, 10, "labelledPark")
	d, err := Capture(context.Background(), CaptureOptions{Mode: ModeTrace, NoLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if counts := labelCounts(d); counts["labelledParkA "] != 10 {
		t.Errorf("parked goroutines by labels %v, want 10 without", counts)
	}
	if !slices.Contains(d.Source.Capture.Missing, "labels") {
		t.Errorf("Missing = %v, want labels", d.Source.Capture.Missing)
	}
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "label") {
			t.Errorf("warning about labels: %s", w.Msg)
		}
	}
	if d.Source.Capture.Pauses != 1 {
		t.Logf("%d pauses (trace.Start's is 1; another of the process's may have come)", d.Source.Capture.Pauses)
	}
}
