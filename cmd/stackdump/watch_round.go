package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/remote"
	"github.com/stackdump/stackdump/stack"
)

// watcher follows targets in rounds: each round captures every target, at
// most concurrency at once, and updates each target's history, kept files
// and metrics. What it holds does not grow with the number of rounds.
type watcher struct {
	targets     []*watchedTarget
	concurrency int
	leakAfter   int
	leakEvery   int // take the leak profile every Nth snapshot per target (0: never)
	top         int
	keep        int
	dir         string          // "" keeps no snapshot files
	metrics     *watchMetrics   // nil without --metrics
	stderr      io.Writer       // shared by concurrent captures: locked
	rounds      int             // rounds run
	lastRound   time.Duration   // the last round's wall time
	names       map[string]bool // file names used in the current round
	// maxPause is --max-pause (0: no bound, a full capture each
	// snapshot); detailEvery is --detail-every.
	maxPause    time.Duration
	detailEvery int
	by          dedupe.By
	// behind counts the rounds that took longer than --every; the first
	// one is warned about. keepWarned is set once --keep removed a file.
	behind     int
	keepWarned bool
}

// watchedTarget is one target's state across rounds.
type watchedTarget struct {
	raw    string        // the target as given, password redacted: the metrics' target label
	target remote.Target // the probed kind once known (see remote.Options.Resolved)
	ropts  remote.Options
	client *http.Client // one per HTTP target, kept alive between rounds
	pipe   pipeline
	comp   output.Compression
	hist   *watchHistory
	kept   []string // snapshot files, oldest first, at most keep

	snapshots int   // successful captures
	failures  int   // failed captures
	lastErr   error // the last failure
	// lastElapsed is how long the last capture took: rounds start the
	// slowest targets first.
	lastElapsed time.Duration
	// noLeak is set once the target answered that it has no goroutine
	// leak profile: --leak-every stops asking it.
	noLeak bool
	// leaked is the goroutines the runtime proved leaked in the target's
	// last leak profile (or in (leaked) states of a later snapshot).
	leaked int64

	// The pause budget: cost is the pause per goroutine the target's last
	// traceback cost (0: none measured yet); sinceDetail counts the
	// snapshots since the last one with per-goroutine detail (-1: none
	// yet); detailKeys are the group keys of that snapshot; detailWhy says
	// why the snapshot being taken wants detail.
	cost        time.Duration
	sinceDetail int
	detailKeys  map[string]bool
	detailWhy   string
	// lastCapture is what the last good snapshot took and cost.
	lastCapture watchCapture
}

// attempts is the number of the target's last snapshot, good or failed:
// the one numbering of the table, --json and standard error.
func (t *watchedTarget) attempts() int { return t.snapshots + t.failures }

// watchOutcome is one target's part of a round.
type watchOutcome struct {
	target  *watchedTarget
	err     error // the capture failed (nil when it succeeded)
	elapsed time.Duration
}

// newWatcher plans the captures of raw targets with o; cmd gives the
// outputs planCaptures needs.
func newWatcher(cmd *cobra.Command, raw []string, o watchOptions) (*watcher, error) {
	w := &watcher{
		concurrency: max(o.concurrency, 1),
		leakAfter:   o.leakAfter,
		leakEvery:   o.leakEvery,
		top:         max(o.top, 1),
		keep:        o.keep,
		dir:         o.dir,
		stderr:      &lockedWriter{w: cmd.ErrOrStderr()},
		maxPause:    o.maxPause,
		detailEvery: o.detailEvery,
	}
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return nil, err
	}
	w.by = by
	seen := map[string]bool{}
	for _, s := range raw {
		if seen[s] {
			return nil, fmt.Errorf("target %s is given twice", s)
		}
		seen[s] = true
		jobs, err := planCaptures(cmd, []string{s}, o.captureOptions)
		if err != nil {
			return nil, err
		}
		job := jobs[0]
		t := &watchedTarget{raw: job.target.String(), target: job.target, ropts: job.ropts, pipe: job.pipe, comp: job.comp,
			hist: newWatchHistory(w.top, o.leakAfter), sinceDetail: -1}
		t.pipe.grouped = o.dir == "" || o.dedupe // nothing to keep: group straight away
		switch {
		case o.dir == "":
			t.pipe.format = output.JSON // written to io.Discard
		case o.format == "":
			t.pipe.format = output.JSON
		}
		if o.dir != "" && o.compress == "" {
			t.comp = output.Gzip
		}
		if err := t.pipe.check(); err != nil {
			return nil, err
		}
		if t.target.Kind == remote.TargetPprof || t.target.Kind == remote.TargetEndpoint {
			t.client = remote.NewClient(t.ropts)
			t.ropts.Client = t.client
			t.ropts.Resolved = func(rt remote.Target) { t.target = rt }
		}
		w.targets = append(w.targets, t)
	}
	return w, nil
}

// round captures every target once and records what each gave. Captures
// cut short because ctx ended are not counted as failures.
func (w *watcher) round(ctx context.Context) []watchOutcome {
	start := time.Now()
	w.rounds++
	clear(w.names)
	if w.names == nil {
		w.names = map[string]bool{}
	}
	jobs := make([]*captureJob, len(w.targets))
	for i, t := range w.targets {
		job := &captureJob{target: t.target, ropts: t.ropts, pipe: t.pipe, comp: t.comp, stdout: io.Discard, stderr: w.stderr}
		if w.takesLeakProfile(t) {
			job.ropts.Mode = remote.ModeLeak
		}
		if job.ropts.Mode == remote.ModeFull && w.maxPause > 0 {
			job.ropts.FullCostPerGoroutine = t.cost
			if w.by != dedupe.ByExact { // exact groups have states: counts would not match them
				job.ropts.Detail = func(counts *stack.Dump) bool { return w.wantDetail(t, counts) }
			}
		}
		if w.dir != "" {
			ext := output.Extension(job.pipe.format, job.comp)
			job.path = filepath.Join(w.dir, uniqueName(w.names, snapshotName(job.target, start.UTC(), job.pipe.format, job.comp), ext))
		}
		jobs[i] = job
	}
	results := w.captureLongestFirst(ctx, jobs)
	out := make([]watchOutcome, 0, len(results))
	for i, res := range results {
		if res.err != nil && ctx.Err() != nil {
			continue // interrupted, not failed
		}
		out = append(out, w.record(w.targets[i], res))
	}
	w.lastRound = time.Since(start)
	if w.metrics != nil {
		w.metrics.round.Set(w.lastRound.Seconds())
		w.metrics.roundsBehind.Add(0) // present from the start, for rate()
		if err := w.metrics.publish(); err != nil {
			fmt.Fprintf(w.stderr, "stackdump: metrics: %v\n", err)
		}
	}
	return out
}

// checkBehind counts round n as behind when it took longer than every
// (the next one starts late and snapshots are further apart than asked),
// and warns of the first such round.
func (w *watcher) checkBehind(n int, every time.Duration) {
	if w.lastRound <= every {
		return
	}
	w.behind++
	if w.metrics != nil {
		w.metrics.roundsBehind.Inc()
		if err := w.metrics.publish(); err != nil {
			fmt.Fprintf(w.stderr, "stackdump: metrics: %v\n", err)
		}
	}
	if w.behind == 1 {
		fmt.Fprintf(w.stderr, "stackdump: warning: round %d took %v, longer than --every %v: the next one starts late, and snapshots are further apart than --every (rounds behind are counted in stackdump_watch_rounds_behind_total; this is said once); raise --every or --concurrency\n",
			n, w.lastRound.Round(time.Millisecond), every)
	}
}

// wantDetail says whether t's snapshot, whose counts are counts, takes
// per-goroutine detail under the pause budget: its first snapshot; one
// where a group grew since the last snapshot, or a group appeared that the
// last detailed snapshot did not have and the last snapshot had too (a
// new stuck candidate, not a passing one); and every detailEvery-th. It
// records why in t.detailWhy.
func (w *watcher) wantDetail(t *watchedTarget, counts *stack.Dump) bool {
	switch {
	case t.sinceDetail < 0:
		t.detailWhy = "first snapshot"
		return true
	case t.sinceDetail+1 >= w.detailEvery:
		t.detailWhy = fmt.Sprintf("every %s (--detail-every)", ordinal(w.detailEvery))
		return true
	}
	groups := dedupe.Group(counts, dedupe.Options{By: w.by, MaxIDs: 1})
	for _, g := range groups { // largest first
		if servesCapture(g) || dedupe.TopFrame(g.Sample.Stack) == nil {
			continue // the capture itself, or runtime-only stacks whose frames the methods show differently
		}
		prev, seen := t.hist.prev[g.Key]
		switch {
		case seen && g.Count > prev:
			t.detailWhy = fmt.Sprintf("%s grew %d → %d", dedupe.TopFrameText(g), prev, g.Count)
			return true
		case seen && !t.detailKeys[g.Key]:
			t.detailWhy = fmt.Sprintf("new group %s (%d)", dedupe.TopFrameText(g), g.Count)
			return true
		}
	}
	t.detailWhy = ""
	return false
}

// servesCapture reports whether g's goroutines are the target serving the
// capture itself (net/http/pprof, runtime/pprof, stackdump's endpoint, and
// the HTTP server's read-ahead on the capture's connection, started for
// each request): their stacks differ between the counts and a traceback,
// or come and go with the request, and would ask for detail every other
// snapshot.
func servesCapture(g *stack.Group) bool {
	if g.Sample == nil {
		return false
	}
	for _, f := range g.Sample.Frames() {
		for _, p := range [...]string{"net/http/pprof.", "runtime/pprof.", "github.com/stackdump/stackdump/dumper.", "net/http.(*connReader).backgroundRead"} {
			if strings.HasPrefix(f.Func, p) {
				return true
			}
		}
	}
	return false
}

// ordinal writes n as "2nd snapshot", "10th snapshot".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	if n == 1 {
		return "snapshot"
	}
	return fmt.Sprintf("%d%s snapshot", n, suffix)
}

// captureLongestFirst captures jobs (one per target, in the targets'
// order) with at most w.concurrency at once, starting the targets whose
// last capture took longest first: a slow target then does not start
// last and stretch the round past its own capture time.
func (w *watcher) captureLongestFirst(ctx context.Context, jobs []*captureJob) []captureResult {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(w.targets[b].lastElapsed, w.targets[a].lastElapsed)
	})
	results := make([]captureResult, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(w.concurrency, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				results[i] = w.capture(ctx, w.targets[i], jobs[i])
			}
		})
	}
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// takesLeakProfile reports whether t's next snapshot is its leak profile
// (every leakEvery-th snapshot of an HTTP target that has one).
func (w *watcher) takesLeakProfile(t *watchedTarget) bool {
	overHTTP := t.target.Kind == remote.TargetPprof || t.target.Kind == remote.TargetEndpoint
	return w.leakEvery > 0 && overHTTP && !t.noLeak && (t.snapshots+t.failures+1)%w.leakEvery == 0
}

// capture captures t with job. A leak-profile snapshot of a target that
// has no leak profile is warned about once, and taken again in the
// target's own mode: the round loses no snapshot, and later rounds do not
// ask again.
func (w *watcher) capture(ctx context.Context, t *watchedTarget, job *captureJob) captureResult {
	res := captureTarget(ctx, job)
	fromLeakEvery := job.ropts.Mode == remote.ModeLeak && t.ropts.Mode != remote.ModeLeak
	if !fromLeakEvery || !errors.Is(res.err, remote.ErrNoLeakProfile) {
		// With --mode leak the leak profile is the target's own mode: a
		// second try would fail the same way.
		return res
	}
	t.noLeak = true
	fmt.Fprintf(w.stderr, "stackdump: warning: %s: %s; --leak-every takes no more leak profiles from this target\n", t.raw, cliMessage(res.err))
	again := &captureJob{target: job.target, ropts: t.ropts, pipe: job.pipe, comp: job.comp, path: job.path, stdout: job.stdout, stderr: job.stderr}
	return captureTarget(ctx, again)
}

// record updates t with one capture's result.
func (w *watcher) record(t *watchedTarget, res captureResult) watchOutcome {
	received := res.job.received.Load()
	t.lastElapsed = res.elapsed
	if res.err != nil {
		t.failures++
		t.lastErr = res.err
		if w.metrics != nil {
			w.metrics.captured(t.raw, res.elapsed, received, nil)
		}
		return watchOutcome{target: t, err: res.err, elapsed: res.elapsed}
	}
	if res.fullCost > 0 {
		t.cost = res.fullCost
	}
	last := res.dumps[len(res.dumps)-1]
	if res.recovered != nil {
		last = *res.recovered
	}
	leakProfile := res.job.ropts.Mode == remote.ModeLeak
	if leakProfile || last.leaked > 0 || w.leakEvery == 0 {
		t.leaked = last.leaked
	}
	t.snapshots++
	t.hist.add(t.attempts(), last.dump.Total, last.groups, leakProfile)
	t.lastCapture = w.describeCapture(t, res, last)
	if res.noDetail {
		t.sinceDetail++
	} else {
		t.sinceDetail = 0
		t.detailKeys = make(map[string]bool, len(last.groups))
		for _, g := range last.groups {
			t.detailKeys[g.Key] = true
		}
	}
	t.ropts.PreviousDebug2Bytes = 0
	if c := last.dump.Source.Capture; c != nil && len(c.Methods) > 0 && c.Methods[len(c.Methods)-1] == "debug2" {
		// The next full capture may skip the debug=1 prefetch when this
		// debug=2 was small (remote.Options.PreviousDebug2Bytes).
		t.ropts.PreviousDebug2Bytes = received
	} else if leakProfile {
		t.ropts.PreviousDebug2Bytes = res.job.ropts.PreviousDebug2Bytes
	}
	if w.dir != "" {
		var warn func()
		if !w.keepWarned {
			warn = func() {
				w.keepWarned = true
				fmt.Fprintf(w.stderr, "stackdump: %s: --keep %d: removing the oldest snapshot files of each target in %s from now on, so that %s keeps at most %d per target (stackdump timeline reads what is left; --keep 0 keeps every one)\n",
					t.raw, w.keep, w.dir, w.dir, w.keep)
			}
		}
		t.kept = rotate(append(t.kept, res.job.path), w.keep, w.stderr, warn)
	}
	if w.metrics != nil {
		w.metrics.captured(t.raw, res.elapsed, received, snapshotOf(t, last, w.leakAfter, w.top))
	}
	return watchOutcome{target: t, elapsed: res.elapsed}
}

// snapshotOf is what the metrics show of a target's last snapshot.
func snapshotOf(t *watchedTarget, last dumpResult, leakAfter, top int) *snapshotMetrics {
	h := t.hist
	snap := &snapshotMetrics{total: last.dump.Total, leaked: t.leaked, states: map[string]int64{}}
	for _, g := range last.groups {
		var inStates int64
		for s, n := range g.States {
			snap.states[s] += n
			inStates += n
		}
		if g.Count > inStates {
			snap.states[""] += g.Count - inStates // a source without states
		}
	}
	rows := h.rows(leakAfter)
	for _, r := range rows {
		if r.Suspect {
			snap.suspects++
		}
	}
	snap.rows = rows[:min(len(rows), top)]
	if p, _ := bestPause(last.dump.Source.Capture); p > 0 {
		snap.pause, snap.hasPause = p, true
	}
	if c := last.dump.Source.Capture; c != nil {
		snap.predicted = c.PausePredicted
	}
	return snap
}

// close releases the targets' kept-alive connections.
func (w *watcher) close() {
	for _, t := range w.targets {
		if t.client != nil {
			t.client.CloseIdleConnections()
		}
	}
}

// lockedWriter serializes writes from concurrent captures.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
