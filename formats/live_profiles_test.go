package formats_test

import (
	"bytes"
	"context"
	"maps"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

const (
	liveBlocked   = 100 // goroutines in liveProfileBlocked
	liveLabelled  = 50  // goroutines in liveProfileLabelled, with labels
	liveFuncsPkg  = "github.com/stackdump/stackdump/formats_test."
	liveBlockedFn = liveFuncsPkg + "liveProfileBlocked"
	liveLabelFn   = liveFuncsPkg + "liveProfileLabelled"
)

//go:noinline
func liveProfileBlocked(c chan struct{}) { <-c }

//go:noinline
func liveProfileLabelled(c chan struct{}) { <-c }

// startLiveGoroutines starts the goroutines the live tests profile and
// stops them when the test ends.
func startLiveGoroutines(t *testing.T) {
	stop := make(chan struct{})
	for range liveBlocked {
		go liveProfileBlocked(stop)
	}
	pprof.Do(context.Background(), pprof.Labels("tenant", "acme", "quote", `say "hi"`), func(context.Context) {
		for range liveLabelled {
			go liveProfileLabelled(stop)
		}
	})
	t.Cleanup(func() { close(stop) })
}

// liveCounts reads a profile and counts the goroutines of the live test
// functions, by function and label set, ignoring the test binary's others.
func liveCounts(t *testing.T, profile []byte) (map[string]int64, *stack.Dump) {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(profile), formats.ReadOptions{})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%d dumps: %v", len(dumps), err)
	}
	got := map[string]int64{}
	for _, r := range dumps[0].Routines {
		for _, f := range r.Frames() {
			if strings.HasPrefix(f.Func, liveFuncsPkg+"liveProfile") {
				got[f.Func+" "+dumptest.LabelsString(r.Labels)] += r.Count
				break
			}
		}
	}
	return got, dumps[0]
}

// TestLiveProfiles profiles real goroutines with runtime/pprof in both
// encodings and reads them: the counts per function and labels must be
// those started. A door test: each encoding is sniffed (debug=0 also
// gunzipped) and read by its codec, debug1 or pprof.
func TestLiveProfiles(t *testing.T) {
	startLiveGoroutines(t)
	want := map[string]int64{
		liveBlockedFn + " ":                          liveBlocked,
		liveLabelFn + ` quote=say "hi";tenant=acme;`: liveLabelled,
	}
	for _, c := range []struct {
		debug int
		kind  stack.Kind
	}{{1, stack.KindGoDebug1}, {0, stack.KindGoPprof}} {
		var got map[string]int64
		var d *stack.Dump
		// A goroutine that was created but has not run yet has only
		// runtime.goexit on its stack (a debug=1 record without frame
		// lines): retry until every one has started.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var buf bytes.Buffer
			if err := pprof.Lookup("goroutine").WriteTo(&buf, c.debug); err != nil {
				t.Fatal(err)
			}
			got, d = liveCounts(t, buf.Bytes())
			if maps.Equal(got, want) || time.Now().After(deadline) {
				break
			}
		}
		if d.Source.Kind != c.kind || len(d.Warnings) != 0 || d.Total < liveBlocked+liveLabelled {
			t.Errorf("debug=%d: kind %s, warnings %v, total %d", c.debug, d.Source.Kind, d.Warnings, d.Total)
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("debug=%d: %s: %d goroutines, want %d (all: %v)", c.debug, k, got[k], n, got)
			}
		}
		if len(got) != len(want) {
			t.Errorf("debug=%d: groups %v", c.debug, got)
		}
	}
}
