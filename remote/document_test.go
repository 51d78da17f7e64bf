package remote

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// readDocument reads doc's one dump with its routines.
func readDocument(t *testing.T, doc *Document) *stack.Dump {
	t.Helper()
	defer doc.Close()
	d, err := doc.Next()
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range doc.Routines() {
		if err != nil {
			t.Logf("warning: %v", err)
			continue
		}
		d.Routines = append(d.Routines, r)
	}
	if _, err := doc.Next(); err != io.EOF {
		t.Errorf("a second dump in the document: %v", err)
	}
	return d
}

// TestOpenDocumentSmallPprof captures this process through net/http/pprof:
// debug=1 predicts no cut, so the document is debug=2, and source.capture
// names both fetches.
func TestOpenDocumentSmallPprof(t *testing.T) {
	parkedInRemoteTest(t, 25)
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL, "")
	doc, err := OpenDocument(context.Background(), tg, Options{}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Cut || !strings.Contains(doc.URL, "debug=2") {
		t.Errorf("cut %v, URL %s: want debug=2, not cut", doc.Cut, doc.URL)
	}
	d := readDocument(t, doc)
	n := 0
	for _, r := range d.Routines {
		if fs := r.Frames(); len(fs) > 0 && slices.ContainsFunc(fs, func(f *stack.Frame) bool { return strings.HasSuffix(f.Func, ".blockedInRemoteTest") }) {
			n++
		}
	}
	c := d.Source.Capture
	if n != 25 || d.Truncated || c == nil || c.Mode != "full" || !slices.Equal(c.Methods, []string{"debug1", "debug2"}) || c.Goroutines != 0 || c.PausePredicted <= 0 || c.PauseObserved <= 0 {
		t.Errorf("%d blockedInRemoteTest goroutines (want 25), truncated %v, capture %+v", n, d.Truncated, c)
	}
}

// TestPredictDebug2Size checks the estimate against this process's real
// debug=2 size: within a factor of two either way.
func TestPredictDebug2Size(t *testing.T) {
	parkedInRemoteTest(t, 300)
	srv := pprofServer(t)
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	counts, err := fetchCounts(context.Background(), tg, Options{}.withDefaults(), formats.ReadOptions{Table: stack.NewTable()}, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	real := int64(len(readStream(t, s)))
	est := predictDebug2Size(counts.dump)
	t.Logf("debug=2: %d bytes, estimated from debug=1: %d", real, est)
	if est < real/2 || est > real*2 {
		t.Errorf("estimate %d bytes for a debug=2 of %d", est, real)
	}
}

// countingPprofServer serves net/http/pprof and records the debug value
// of each goroutine profile request, in order.
func countingPprofServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var asked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/goroutine") {
			mu.Lock()
			asked = append(asked, "debug="+r.URL.Query().Get("debug"))
			mu.Unlock()
		}
		pprof.Index(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(asked)
		asked = asked[:0]
		return out
	}
}

// TestOpenDocumentPreviousSizeSkipsCounts: a target whose last debug=2 was
// small (Options.PreviousDebug2Bytes, as watch passes it) gets one request
// per snapshot, debug=2; without the hint, or with a last size near the
// cut, debug=1 is still fetched first to predict the cut.
func TestOpenDocumentPreviousSizeSkipsCounts(t *testing.T) {
	parkedInRemoteTest(t, 25)
	srv, asked := countingPprofServer(t)
	tg, _ := ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	for _, tc := range []struct {
		previous int64
		want     []string
	}{
		{0, []string{"debug=1", "debug=2"}},
		{200 << 10, []string{"debug=2"}},
		{skipCountsBelow - 1, []string{"debug=2"}},
		{skipCountsBelow, []string{"debug=1", "debug=2"}},
		{40 << 20, []string{"debug=1", "debug=2"}},
	} {
		doc, err := OpenDocument(context.Background(), tg, Options{PreviousDebug2Bytes: tc.previous}, formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := readDocument(t, doc)
		got := asked()
		if !slices.Equal(got, tc.want) {
			t.Errorf("previous debug=2 of %d bytes: requests %v, want %v", tc.previous, got, tc.want)
		}
		methods := []string{"debug2"}
		if len(tc.want) == 2 {
			methods = []string{"debug1", "debug2"}
		}
		n := 0
		for _, r := range d.Routines {
			if slices.ContainsFunc(r.Frames(), func(f *stack.Frame) bool { return strings.HasSuffix(f.Func, ".blockedInRemoteTest") }) {
				n++
			}
		}
		if c := d.Source.Capture; doc.Cut || n != 25 || c == nil || !slices.Equal(c.Methods, methods) {
			t.Errorf("previous %d: cut %v, %d blockedInRemoteTest (want 25), capture %+v (want methods %v)", tc.previous, doc.Cut, n, c, methods)
		}
	}
}
