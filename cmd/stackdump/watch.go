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

	"github.com/stackdump/stackdump/analyze"
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
		Use: "watch TARGET... [--targets FILE]",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, args, o)
		},
	}
	setHelp(cmd, watchHelp)
	cmd.Long += "\n\n" + filterHelp
	o.addRemoteFlags(cmd)
	o.addMaxPauseFlag(cmd, 10*time.Millisecond, "0: every stack in every snapshot")
	f := cmd.Flags()
	f.IntVar(&o.detailEvery, "detail-every", 10, "take every stack at least every `N`th snapshot of a target, even when no group grew")
	f.DurationVar(&o.every, "every", 10*time.Second, "time between snapshots")
	f.IntVar(&o.count, "count", 0, "stop after N rounds of snapshots (0: until Ctrl-C)")
	f.StringVarP(&o.dir, "output", "o", "", "keep each snapshot as a file in the directory `DIR` (made if missing; an existing file is refused)")
	f.IntVar(&o.keep, "keep", 10, "snapshots kept in DIR per target; older ones are removed (0: keep every snapshot)")
	f.IntVar(&o.leakAfter, "leak-after", 3, "flag groups that grew in each of the last N snapshots")
	f.IntVar(&o.leakEvery, "leak-every", 0, "every Nth snapshot of a target, ask the runtime which goroutines are leaked (Go 1.27+; stalls the service, as --mode leak); 0: never")
	f.IntVar(&o.top, "top", 15, "groups shown in the table (and followed, and exported as metrics) per target")
	f.BoolVar(&o.json, "json", false, "print one JSON line per snapshot instead of the table")
	f.StringVar(&o.targetsFile, "targets", "", "read targets from `FILE`, one per line (# comments allowed)")
	f.IntVar(&o.concurrency, "concurrency", 8, "targets captured at once")
	f.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (e.g. :9464)")
	o.filters.add(cmd)
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
	switch {
	case t.restarted != "":
		fmt.Fprintf(&b, "%s  snapshot %d%s at %s  total %d (a new process: its history starts here)\n",
			t.raw, t.attempts(), failed, time.Now().Format("15:04:05"), total)
		fmt.Fprintf(&b, "  restarted: %s\n", t.restarted)
	case t.historyFrom > 1:
		fmt.Fprintf(&b, "%s  snapshot %d%s at %s  total %d (%+d since last, %+d since snapshot %d, the restart)\n",
			t.raw, t.attempts(), failed, time.Now().Format("15:04:05"), total, total-h.prevTotal(), total-h.firstTotal, t.historyFrom)
	default:
		fmt.Fprintf(&b, "%s  snapshot %d%s at %s  total %d (%+d since last, %+d since first)\n",
			t.raw, t.attempts(), failed, time.Now().Format("15:04:05"), total, total-h.prevTotal(), total-h.firstTotal)
	}
	if c := t.lastCapture; len(c.Methods) > 0 || c.PauseNs > 0 || c.Why != "" {
		fmt.Fprintf(&b, "  capture: %s\n", t.lastCapture.text())
	}
	rows := h.rows(o.leakAfter)
	rows = rows[:min(len(rows), o.top)]
	// The state column is as wide as the longest state shown: JVM states
	// ("TIMED_WAITING (on object monitor)") are not cut.
	width := len("STATE")
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.stateText()))
	}
	fmt.Fprintf(&b, "%8s %8s %8s  %-*s %s\n", "COUNT", "Δ LAST", "Δ FIRST", width, "STATE", "WHERE")
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
		state := r.stateText()
		fmt.Fprintf(&b, "%8d %+8d %+8d  %s%s %s%s\n", r.Count, r.DeltaLast, r.DeltaFirst, state, strings.Repeat(" ", width-utf8.RuneCountInString(state)), r.Top, flag)
	}
	writeWatchFindings(&b, t)
	b.WriteString("\n")
	io.WriteString(w, b.String())
}

func writeWatchJSON(w io.Writer, t *watchedTarget, o watchOptions) error {
	rows := t.hist.rows(o.leakAfter)
	suspects, proven, findings := []string{}, []string{}, t.findings
	if findings == nil {
		findings = []analyze.Finding{}
	}
	for _, r := range rows {
		if r.Suspect {
			suspects = append(suspects, r.Key)
		}
		if r.Proven {
			proven = append(proven, r.Key)
		}
	}
	line, err := json.Marshal(struct {
		Time     time.Time `json:"time"`
		Target   string    `json:"target"`
		Snapshot int       `json:"snapshot"`
		Failed   int       `json:"failed"`
		Total    int64     `json:"total"`
		// Restarted says why this snapshot is of a new process, whose
		// history starts here; HistoryFrom is the number of the snapshot
		// the history (deltas, suspects) starts at; Restarts counts them.
		Restarted   string       `json:"restarted,omitempty"`
		HistoryFrom int          `json:"history_from"`
		Restarts    int          `json:"restarts"`
		Capture     watchCapture `json:"capture"`
		Groups      []watchRow   `json:"groups"`
		Suspects    []string     `json:"suspects"`
		Proven      []string     `json:"proven"`
		Leaked      int64        `json:"leaked"`
		// Findings are analyze's verdicts with their evidence on the
		// snapshot numbered FindingsFrom, the last that had states;
		// Clear the checks that found nothing.
		Findings     []analyze.Finding `json:"findings"`
		FindingsFrom int               `json:"findings_from,omitempty"`
		Clear        []string          `json:"clear,omitempty"`
	}{time.Now().UTC(), t.raw, t.attempts(), t.failures, t.hist.total(), t.restarted, t.historyFrom, t.restarts,
		t.lastCapture, rows[:min(len(rows), o.top)], suspects, proven, t.leaked,
		findings, t.findingsAt, t.clear})
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
	fmt.Fprintln(w)
	if t.restarts > 0 {
		fmt.Fprintf(w, "%srestarted %s, last at snapshot %d: %s; since then:\n", prefix, words.Count(t.restarts, "time"), t.historyFrom, t.lastRestart)
	}
	fmt.Fprintf(w, "%s%s; total %d → %d (%+d), peak %d at snapshot %d", prefix, words.Count(h.snapshots, "snapshot"), h.firstTotal, h.total(), h.total()-h.firstTotal, h.peakTotal, h.peakAt)
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

// stateText is a row's STATE cell: the runtime's state, or, for a group
// only counts showed (no state), the call it waits in, "in
// runtime.chanrecv1"; "-" when neither is known.
func (r watchRow) stateText() string {
	switch {
	case r.State != "":
		return r.State
	case r.Wait != "":
		return "in " + r.Wait
	}
	return "-"
}

// writeWatchFindings lists analyze's verdicts on the target's last
// snapshot with states: the same findings, claims and evidence as
// stackdump analyze gives, and the checks that found nothing.
func writeWatchFindings(b *strings.Builder, t *watchedTarget) {
	if t.findingsAt == 0 || len(t.findings) == 0 && len(t.clear) == 0 {
		return
	}
	if t.findingsAt == t.attempts() {
		b.WriteString("  findings:\n")
	} else {
		fmt.Fprintf(b, "  findings of snapshot %d, the last with states:\n", t.findingsAt)
	}
	writeFindings(b, t.findings, t.clear, "    ")
}
