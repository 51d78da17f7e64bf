package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWatchSnapshotCutAfterSmallOne: a watched target whose last debug=2
// was small is fetched without the debug=1 prediction; when it has grown
// to 60,000 goroutines since, its debug=2 is the runtime's 64 MiB cut,
// which is still detected: debug=1 is fetched then, and the snapshot is
// the trace snapshot with every goroutine and debug=1's labels joined.
func TestWatchSnapshotCutAfterSmallOne(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 64 MiB truncation test")
	}
	const parked = 60000
	addr := startTruncChild(t, "STACKDUMP_TRUNC_CHILD=60000")
	dir := t.TempDir()
	cmd := newWatchCommand()
	var stderr strings.Builder
	cmd.SetErr(&stderr)
	o := watchOptions{captureOptions: captureOptions{concurrency: 1, mode: "full", by: "stack", retries: -1, timeout: time.Minute, connectTimeout: 5 * time.Second, maxBytes: 2 << 30, format: "json", compress: "none"},
		dir: dir, keep: 2, top: 5, leakAfter: 2}
	w, err := newWatcher(cmd, []string{"http://" + addr + "/debug/pprof/goroutine"}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	tg := w.targets[0]
	tg.ropts.PreviousDebug2Bytes = 1 << 20 // as if the last snapshot's debug=2 was 1 MiB
	job := &captureJob{target: tg.target, ropts: tg.ropts, pipe: tg.pipe, comp: tg.comp,
		path: filepath.Join(dir, "snap.json"), stderr: w.stderr}
	res := w.capture(t.Context(), tg, job)
	if res.err != nil {
		t.Fatalf("%v\n%s", res.err, stderr.String())
	}
	d := readDumpFile(t, job.path)[0]
	checkEveryDeepPark(t, d, parked)
	if c := d.Source.Capture; c == nil || d.Truncated || !slices.Equal(c.Methods, []string{"debug2", "debug1", "trace"}) ||
		!slices.Equal(c.Joined, []string{"labels from debug1"}) {
		t.Errorf("source.capture %+v, truncated %v: want methods [debug2 debug1 trace] (debug=2 first, cut, then the prediction's debug=1 and the trace), labels joined", c, d.Truncated)
	}
	// The next snapshot predicts again: the trace's size is no debug=2 size.
	if out := w.record(tg, res, nil); out.err != nil || tg.ropts.PreviousDebug2Bytes != 0 {
		t.Errorf("after a cut snapshot: err %v, PreviousDebug2Bytes %d; want 0 (predict the cut again)", out.err, tg.ropts.PreviousDebug2Bytes)
	}
}
