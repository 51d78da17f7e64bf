package compat

// Item 1 of issue 25: a check inside t.Run reports everything goleak
// reports there, with goleak's idiom `defer VerifyNone(t, IgnoreCurrent())`
// for a parent that keeps goroutines of its own running.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// checkSubtest runs body in a subtest, checking it as
// `defer VerifyNone(t, IgnoreCurrent())` would at the top of the subtest,
// and returns what the check reported. after runs once the check is done,
// to end what body left.
func checkSubtest(t *testing.T, name string, body func(t *testing.T), after func()) []string {
	t.Helper()
	var got []string
	t.Run(name, func(t *testing.T) {
		rec := &recorder{TB: t}
		func() {
			defer VerifyNone(rec, IgnoreCurrent(), fast())
			body(t)
		}()
		got = rec.reports()
		if after != nil {
			after()
		}
	})
	return got
}

// An HTTP client whose keep-alive connection is left open leaves its
// transport's read and write loops running; the dial goroutine that
// started them has exited by the time of the check.
func TestSubtestHTTPKeepAlive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	var tr *http.Transport
	got := checkSubtest(t, "client", func(t *testing.T) {
		tr = &http.Transport{}
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// The leak: tr.CloseIdleConnections is not called.
		waitFor(t, "net/http.(*persistConn).readLoop", "")
	}, func() { tr.CloseIdleConnections() })
	if len(got) != 1 {
		t.Fatalf("%s: the client's keep-alive goroutines were not reported: %q", impl, got)
	}
	for _, want := range []string{"found unexpected goroutines", "net/http.(*persistConn).readLoop", "net/http.(*persistConn).writeLoop"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("%s: report lacks %q:\n%s", impl, want, got[0])
		}
	}
	srv.CloseClientConnections()
}

// A worker the parent test started creates a goroutine for the subtest
// that never ends.
func TestSubtestParentsWorker(t *testing.T) {
	jobs := make(chan func())
	done := make(chan struct{})
	go func() { // the parent's worker: runs each job in a goroutine of its own
		defer close(done)
		for job := range jobs {
			go job()
		}
	}()
	defer func() { close(jobs); <-done }()
	release := make(chan struct{})
	got := checkSubtest(t, "job", func(t *testing.T) {
		jobs <- func() { parkForSubtest(release) }
		waitFor(t, "compat.parkForSubtest", "chan receive")
	}, func() { close(release) })
	if len(got) != 1 || !strings.Contains(got[0], "found unexpected goroutines") || !strings.Contains(got[0], "compat.parkForSubtest") {
		t.Fatalf("%s: the goroutine the parent's worker started for the subtest was not reported: %q", impl, got)
	}
	waitGone(t, "compat.parkForSubtest")
}

func parkForSubtest(release chan struct{}) { <-release }

// The subtest's own leak, beside goroutines the parent keeps: the leak is
// reported, the parent's goroutines (taken by IgnoreCurrent) are not, and
// a clean subtest passes.
func TestSubtestIgnoreCurrentIdiom(t *testing.T) {
	parents := startBlocked(t)
	defer parents.unblock()
	release := make(chan struct{})
	got := checkSubtest(t, "leaky", func(t *testing.T) {
		go parkForSubtest(release)
		waitFor(t, "compat.parkForSubtest", "chan receive")
	}, func() { close(release) })
	if len(got) != 1 || !strings.Contains(got[0], "compat.parkForSubtest") {
		t.Fatalf("%s: the subtest's leak was not reported: %q", impl, got)
	}
	if strings.Contains(got[0], "compat.(*blocked).wait") {
		t.Errorf("%s: the parent's goroutine, taken by IgnoreCurrent, was reported:\n%s", impl, got[0])
	}
	waitGone(t, "compat.parkForSubtest")
	if got := checkSubtest(t, "clean", func(t *testing.T) {
		b := startBlocked(t)
		b.unblock()
		waitGone(t, "compat.(*blocked).wait\n\t")
	}, nil); len(got) != 0 {
		t.Errorf("%s: a clean subtest beside the parent's goroutine was reported: %q", impl, got)
	}
}

// Without IgnoreCurrent, a subtest's check sees the parent's goroutines,
// as goleak's does: the check is the whole process's.
func TestSubtestSeesParentsGoroutines(t *testing.T) {
	parents := startBlocked(t)
	defer parents.unblock()
	var got []string
	t.Run("plain", func(t *testing.T) {
		rec := &recorder{TB: t}
		VerifyNone(rec, fast())
		got = rec.reports()
	})
	if len(got) != 1 || !strings.Contains(got[0], "compat.(*blocked).wait") {
		t.Errorf("%s: want the parent's goroutine reported by a subtest's plain check: %q", impl, got)
	}
}
