package dumper

import (
	"context"
	"net/http/httptest"
	"runtime/pprof"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// parkLabelled parks a goroutine under the pprof label key=value in
// handlerNoLabelsPark until the test ends.
func parkLabelled(t *testing.T, key, value string) {
	t.Helper()
	stop, parked := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		pprof.Do(context.Background(), pprof.Labels(key, value), func(context.Context) {
			handlerNoLabelsPark(parked, stop)
		})
	}()
	<-parked
	t.Cleanup(func() { close(stop); <-done })
}

//go:noinline
func handlerNoLabelsPark(parked, stop chan struct{}) {
	close(parked)
	<-stop
}

// labelledRoutine returns the labels of the routine parked in
// handlerNoLabelsPark, failing the test when the dump has none such.
func labelledRoutine(t *testing.T, d *stack.Dump) stack.Labels {
	t.Helper()
	for _, r := range d.Routines {
		for _, f := range r.Frames() {
			if f.Func == "github.com/stackdump/stackdump/dumper.handlerNoLabelsPark" {
				return r.Labels
			}
		}
	}
	t.Fatalf("no goroutine in handlerNoLabelsPark among %d", len(d.Routines))
	return nil
}

// TestHandlerNoLabels checks that HandlerOptions.Capture reaches the
// capture: a Handler with NoLabels serves a full dump without the pprof
// labels of a labelled goroutine, which the default Handler serves.
func TestHandlerNoLabels(t *testing.T) {
	if tracebackPrintsLabels() {
		t.Skip("this process's GODEBUG prints labels in every traceback; NoLabels keeps those")
	}
	parkLabelled(t, "stackdump_test", "nolabels")
	for _, c := range []struct {
		name   string
		opts   HandlerOptions
		labels bool
	}{
		{"default", HandlerOptions{}, true},
		{"NoLabels", HandlerOptions{Capture: CaptureOptions{NoLabels: true}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(Handler(c.opts))
			defer srv.Close()
			for _, format := range []string{"text", "json"} {
				resp, body := get(t, srv.URL+"/debug/stackdump?mode=full&format="+format)
				if resp.StatusCode != 200 {
					t.Fatalf("format=%s: %d %s", format, resp.StatusCode, body)
				}
				labels := labelledRoutine(t, readDump(t, body))
				v, ok := labels.Get("stackdump_test")
				if c.labels && (!ok || v != "nolabels") {
					t.Errorf("format=%s: labels %v, want stackdump_test=nolabels", format, labels)
				}
				if !c.labels && len(labels) != 0 {
					t.Errorf("format=%s: labels %v, want none", format, labels)
				}
			}
		})
	}
}
