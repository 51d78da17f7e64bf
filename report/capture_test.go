package report

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// captureOwn captures this test process through a real net/http/pprof
// server in full mode within maxPause, with a pause model whose cost is
// costPerKiB (the traceback is over the budget when it is high), and
// returns the dump read whole.
func captureOwn(t *testing.T, maxPause time.Duration, costPerKiB time.Duration) *stack.Dump {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tg, err := remote.ParseTarget(srv.URL+"/debug/pprof/goroutine", "")
	if err != nil {
		t.Fatal(err)
	}
	var m remote.PauseModel
	m.Learn(remote.FullPause{Bytes: 1 << 10, Pause: costPerKiB})
	doc, err := remote.OpenDocument(context.Background(), tg, remote.Options{MaxPause: maxPause, Pauses: &m}, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	d, err := doc.Next()
	if err != nil {
		t.Fatal(err)
	}
	for r, err := range doc.Routines() {
		if err == nil && r != nil {
			d.Routines = append(d.Routines, r)
		}
	}
	return d
}

// TestCaptureSaysWhatItWas: a full capture that the pause budget turned
// into the execution-trace snapshot is called that on the page, with what
// it holds, what was asked for instead and its predicted pause — not
// "full", as the page used to say; a real traceback is called a full
// traceback with its observed pause. In Chromium.
func TestCaptureSaysWhatItWas(t *testing.T) {
	b := findBrowser(t)
	trace := captureOwn(t, time.Millisecond, time.Second)
	if c := trace.Source.Capture; c == nil || c.Mode != "full" || !slices.Equal(c.Methods, []string{"debug1", "trace"}) {
		t.Fatalf("the over-budget capture: %+v; want mode full made of debug1 + trace", trace.Source.Capture)
	}
	full := captureOwn(t, time.Minute, time.Microsecond)
	if c := full.Source.Capture; c == nil || !slices.Equal(c.Methods, []string{"debug1", "debug2"}) {
		t.Fatalf("the capture within budget: %+v", full.Source.Capture)
	}
	cases := []struct {
		d     *stack.Dump
		what  string
		texts []string
	}{
		{trace, "execution-trace snapshot", []string{"execution-trace snapshot, from debug1 + trace", "pause ≈", "every goroutine's id, state and stack; no wait times",
			"a full capture was asked for; the trace snapshot stood in for the traceback"}},
		{full, "full traceback", []string{"full traceback, from debug1 + debug2", "paused the process at most ", "(the traceback's answer wait), ≈", "wait time, arguments and creator"}},
	}
	for _, c := range cases {
		page := writeReport(t, []Input{{Dump: c.d}}, Options{})
		dom := b.load(t, page, "", "")
		m := regexp.MustCompile(`<dd data-capture="([^"]*)">([^<]*)</dd>`).FindStringSubmatch(dom)
		if m == nil || m[1] != c.what {
			t.Errorf("%s: the page's capture fact %q; want it called %q", c.what, m, c.what)
			continue
		}
		for _, want := range c.texts {
			if !strings.Contains(dom, want) {
				t.Errorf("%s: the page lacks %q", c.what, want)
			}
		}
		if c.what != "full traceback" && strings.Contains(m[2], "full") {
			t.Errorf("the trace snapshot is called full: %q", m[2])
		}
	}
}
