package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/internal/words"
)

type watchOptions struct {
	captureOptions
	every     time.Duration
	count     int
	dir       string
	keep      int
	leakAfter int
	leakEvery int
	top       int
	json      bool
	metrics   string
	// detailEvery is --detail-every: under --max-pause, every Nth
	// snapshot of a target takes per-goroutine detail whatever its
	// counts say.
	detailEvery int
}

func newWatchCommand() *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch TARGET... [--targets FILE]",
		Short: "Capture processes periodically and track which stack groups grow",
		Long: `watch captures every TARGET each --every (at most --concurrency at once),
optionally keeps each snapshot in a directory (rotating, at most --keep files
per target), and prints, per target, a table of the largest groups: their
count now, the change since the previous snapshot and since the group was
first seen. Groups that grew in each of the last --leak-after snapshots are
flagged as leak suspects. With --leak-every N, every Nth snapshot of a
target is Go 1.27's goroutine leak profile (as capture --mode leak: it runs
a GC cycle in the target); a suspect whose goroutines the runtime proved
leaked is marked "proven", and proven leaks are listed first. A target
without the profile is warned about once and then captured as usual.
Ctrl-C (or --count) ends it with a final report (not with --json).
With --json, one JSON object per snapshot and target is printed on its own
line, and nothing else. With --metrics ADDR, Prometheus metrics are served at
http://ADDR/metrics (see docs/fleet.md).

The pause budget (--max-pause, default 10ms). A full capture stops the
target's world for the whole traceback, 10–90 µs per goroutine. So each
snapshot of a Go target first takes its counts (debug=1: pauses of µs), and
takes per-goroutine detail only when a group grew, a new group appeared
that was not in the last detailed snapshot, or every --detail-every
snapshots, and only in a way that fits the budget: the full traceback when
its pause, predicted from the goroutine count and the target's measured
cost per goroutine, fits; else the execution-trace snapshot (one pause of
tens of µs; /debug/pprof/trace); else, from a target without it, the counts
alone. The table says which each snapshot took and what it cost
(--json: "capture"; metrics: stackdump_capture_pause_seconds).
--max-pause 0 takes a full capture every snapshot.

Each target keeps one connection alive between snapshots and is probed for
stackdump's endpoint once. A failing target is reported on standard error
and the others go on. Memory is bounded by --top and --leak-after, not by
the number of snapshots.

Exit status: 0 when every target gave at least one snapshot; 1 when any
target gave none (unreachable, 404, not a dump), even if others succeeded,
and for bad flags; 130 or 143 when Ctrl-C or SIGTERM ended it (after the
final report).`,
		Example: `  stackdump watch localhost:6060 --every 30s -o snapshots/ --keep 20
  stackdump watch http://svc:6060 --every 5s --count 12 --json | jq .suspects
  stackdump watch --targets hosts.txt --concurrency 50 --every 1m --metrics :9464
  stackdump watch localhost:6060 --every 5s --max-pause 50ms --detail-every 4`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, args, o)
		},
	}
	o.addRemoteFlags(cmd)
	o.addMaxPauseFlag(cmd, 10*time.Millisecond, "also, a snapshot takes per-goroutine detail only when a group grew or appeared, or every --detail-every; 0: a full capture every snapshot")
	f := cmd.Flags()
	f.IntVar(&o.detailEvery, "detail-every", 10, "under --max-pause, take per-goroutine detail at least every `N`th snapshot of a target, even when no group grew")
	f.DurationVar(&o.every, "every", 10*time.Second, "time between snapshots")
	f.IntVar(&o.count, "count", 0, "stop after N rounds of snapshots (0: until Ctrl-C)")
	f.StringVarP(&o.dir, "output", "o", "", "keep each snapshot as a file in the directory `DIR` (made if missing; an existing file is refused)")
	f.IntVar(&o.keep, "keep", 10, "snapshots kept in DIR per target; older ones are removed (0: keep every snapshot)")
	f.IntVar(&o.leakAfter, "leak-after", 3, "flag groups that grew in each of the last N snapshots")
	f.IntVar(&o.leakEvery, "leak-every", 0, "take the goroutine leak profile (Go 1.27+, runs a GC cycle in the target) every Nth snapshot per target; 0: never")
	f.IntVar(&o.top, "top", 15, "groups shown in the table (and followed, and exported as metrics) per target")
	f.BoolVar(&o.json, "json", false, "print one JSON line per snapshot instead of the table")
	f.StringVar(&o.targetsFile, "targets", "", "read targets from `FILE`, one per line (# comments allowed)")
	f.IntVar(&o.concurrency, "concurrency", 8, "targets captured at once")
	f.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (e.g. :9464)")
	return cmd
}

// check refuses flag values watch has no meaning for, before any capture:
// a negative --top used to panic after the first snapshot, a negative
// --count watched forever, --leak-after 0 flagged nothing.
func (o watchOptions) check() error {
	switch {
	case o.every <= 0:
		return errors.New("--every must be positive")
	case o.count < 0:
		return errors.New("--count must be 0 (until Ctrl-C) or a positive number of rounds")
	case o.keep < 0:
		return errors.New("--keep must be 0 (keep every snapshot) or a positive number of files")
	case o.top < 1:
		return errors.New("--top must be a positive number of groups")
	case o.leakAfter < 1:
		return errors.New("--leak-after must be a positive number of snapshots")
	case o.leakEvery < 0:
		return errors.New("--leak-every must be 0 (never) or a positive number of snapshots")
	case o.detailEvery < 1:
		return errors.New("--detail-every must be a positive number of snapshots")
	}
	return o.captureOptions.check()
}

func runWatch(cmd *cobra.Command, args []string, o watchOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	raw, err := targetList(args, o.captureOptions)
	if err != nil {
		return err
	}
	if o.dir == "-" {
		return errors.New(`-o -: watch writes each snapshot to a file in a directory, not to standard output; give a directory (-o DIR), or use --json for one line per snapshot on standard output`)
	}
	if fi, err := os.Stat(filepath.Clean(o.dir)); o.dir != "" && err == nil && !fi.IsDir() {
		what := "is not a directory"
		if fi.Mode().IsRegular() {
			what = "is a file"
		}
		return fmt.Errorf("-o %s: watch's -o is a directory that keeps each snapshot as a file, and %s %s (capture -o FILE writes one dump to a file)", o.dir, o.dir, what)
	}
	w, err := newWatcher(cmd, raw, o)
	if err != nil {
		return err
	}
	defer w.close()
	// The directory is made once every target is known good: a bad
	// target leaves nothing behind.
	if o.dir != "" {
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			return fmt.Errorf("-o %s: watch keeps its snapshots in a directory: %w", o.dir, err)
		}
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()
	if o.metrics != "" {
		ln, err := net.Listen("tcp", o.metrics)
		if err != nil {
			return fmt.Errorf("--metrics: %w", err)
		}
		w.metrics = newWatchMetrics()
		mctx, cancel := context.WithCancel(ctx)
		wait := w.metrics.serve(mctx, ln, w.stderr)
		defer func() { cancel(); wait() }()
		fmt.Fprintf(w.stderr, "stackdump: serving metrics at http://%s/metrics\n", ln.Addr())
	}

	out := cmd.OutOrStdout()
	tty := isTerminal(out) && !o.json
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for n := 1; ; n++ {
		outcomes := w.round(ctx)
		if ctx.Err() != nil {
			break
		}
		w.checkBehind(n, o.every)
		if err := writeWatchRound(out, w, outcomes, o, tty); err != nil {
			return err
		}
		if o.count > 0 && n >= o.count {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	if !o.json {
		for _, t := range w.targets {
			writeWatchReport(out, t, len(w.targets) > 1, o)
		}
	}
	failed := 0
	for _, t := range w.targets {
		if t.snapshots == 0 {
			failed++
		}
	}
	if failed > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d of %d targets gave no snapshot", failed, len(w.targets))}
	}
	return nil
}

// writeWatchRound prints a round: failures on standard error, then a table
// (or a JSON line) per target that gave a snapshot.
func writeWatchRound(out io.Writer, w *watcher, outcomes []watchOutcome, o watchOptions, tty bool) error {
	if tty {
		io.WriteString(out, "\033[H\033[2J")
	}
	for _, oc := range outcomes {
		if oc.err != nil {
			fmt.Fprintf(w.stderr, "stackdump: snapshot %d of %s failed: %s\n", oc.target.attempts(), oc.target.raw, cliMessage(oc.err))
			continue
		}
		if o.json {
			if err := writeWatchJSON(out, oc.target, o); err != nil {
				return err
			}
			continue
		}
		writeWatchTable(out, oc.target, o)
	}
	return nil
}

// rotate removes the oldest snapshot files beyond keep; warn, when set,
// is called before the first removal.
func rotate(files []string, keep int, stderr io.Writer, warn func()) []string {
	for keep > 0 && len(files) > keep {
		if warn != nil {
			warn()
			warn = nil
		}
		if err := os.Remove(files[0]); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "stackdump: removing old snapshot: %v\n", err)
		}
		files = files[1:]
	}
	return files
}

func writeWatchTable(w io.Writer, t *watchedTarget, o watchOptions) {
	var b strings.Builder
	h := t.hist
	total := h.total()
	failed := ""
	if t.failures > 0 {
		failed = fmt.Sprintf(" (%d failed)", t.failures)
	}
	fmt.Fprintf(&b, "%s  snapshot %d%s at %s  total %d (%+d since last, %+d since first)\n",
		t.raw, t.attempts(), failed, time.Now().Format("15:04:05"), total, total-h.prevTotal(), total-h.firstTotal)
	if c := t.lastCapture; len(c.Methods) > 0 || c.PauseNs > 0 || c.Why != "" {
		fmt.Fprintf(&b, "  capture: %s\n", t.lastCapture.text())
	}
	rows := h.rows(o.leakAfter)
	rows = rows[:min(len(rows), o.top)]
	// The state column is as wide as the longest state shown: JVM states
	// ("TIMED_WAITING (on object monitor)") are not cut.
	width := len("STATE")
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.State))
	}
	fmt.Fprintf(&b, "%8s %8s %8s  %-*s %s\n", "COUNT", "Δ LAST", "Δ FIRST", width, "STATE", "TOP FRAME")
	for _, r := range rows {
		flag := ""
		switch {
		case r.Proven:
			flag = fmt.Sprintf("  ← leak: growing, %d proven leaked", r.Leaked)
		case r.Leaked > 0:
			flag = fmt.Sprintf("  ← %d proven leaked", r.Leaked)
		case r.Suspect:
			flag = "  ← leak suspect"
		}
		fmt.Fprintf(&b, "%8d %+8d %+8d  %s%s %s%s\n", r.Count, r.DeltaLast, r.DeltaFirst, r.State, strings.Repeat(" ", width-utf8.RuneCountInString(r.State)), r.Top, flag)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

func writeWatchJSON(w io.Writer, t *watchedTarget, o watchOptions) error {
	rows := t.hist.rows(o.leakAfter)
	suspects, proven := []string{}, []string{}
	for _, r := range rows {
		if r.Suspect {
			suspects = append(suspects, r.Key)
		}
		if r.Proven {
			proven = append(proven, r.Key)
		}
	}
	line, err := json.Marshal(struct {
		Time     time.Time    `json:"time"`
		Target   string       `json:"target"`
		Snapshot int          `json:"snapshot"`
		Failed   int          `json:"failed"`
		Total    int64        `json:"total"`
		Capture  watchCapture `json:"capture"`
		Groups   []watchRow   `json:"groups"`
		Suspects []string     `json:"suspects"`
		Proven   []string     `json:"proven"`
		Leaked   int64        `json:"leaked"`
	}{time.Now().UTC(), t.raw, t.attempts(), t.failures, t.hist.total(), t.lastCapture, rows[:min(len(rows), o.top)], suspects, proven, t.leaked})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", line)
	return err
}

// writeWatchReport is a target's final report: its total over time and
// the suspects with their last counts; named names the target (when
// several are watched).
func writeWatchReport(w io.Writer, t *watchedTarget, named bool, o watchOptions) {
	h := t.hist
	prefix := ""
	if named {
		prefix = t.raw + ": "
	}
	if h.snapshots == 0 {
		fmt.Fprintf(w, "%sno snapshot taken", prefix)
		if t.lastErr != nil {
			fmt.Fprintf(w, " (%d failed; last error: %v)", t.failures, t.lastErr)
		}
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "\n%s%s; total %d → %d (%+d), peak %d at snapshot %d", prefix, words.Count(h.snapshots, "snapshot"), h.firstTotal, h.total(), h.total()-h.firstTotal, h.peakTotal, h.peakAt)
	if t.failures > 0 {
		fmt.Fprintf(w, "; %d of %d failed", t.failures, t.attempts())
	}
	fmt.Fprintln(w)
	found := false
	for _, r := range h.rows(o.leakAfter) {
		if !r.Suspect {
			continue // proven but not growing: in the table
		}
		found = true
		what := "leak suspect"
		if r.Proven {
			what = fmt.Sprintf("proven leak (%d leaked)", r.Leaked)
		}
		sr := h.series[r.Key]
		fmt.Fprintf(w, "%s%s %s: %s last counts %s, peak %d\n", prefix, what, r.State, r.Top, countSeries(sr.counts), sr.peak)
	}
	switch {
	case found:
	case h.snapshots <= o.leakAfter:
		// Growth in each of the last leakAfter snapshots needs one more
		// to compare the first with: too few to say no group grew.
		fmt.Fprintf(w, "%stoo few snapshots to flag a leak: growth in each of the last %s (--leak-after) needs %d\n",
			prefix, words.Count(o.leakAfter, "snapshot"), o.leakAfter+1)
	default:
		fmt.Fprintf(w, "%sno group grew in each of the last %s\n", prefix, words.Count(o.leakAfter, "snapshot"))
	}
}

// countSeries writes a group's counts over the snapshots as "3 → 5 → 9".
func countSeries(counts []int64) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = strconv.FormatInt(c, 10)
	}
	return strings.Join(parts, " → ")
}
