package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"

	"github.com/stackdump/stackdump/internal/words"
)

type watchOptions struct {
	captureOptions
	every     time.Duration
	count     int
	dir       string
	keep      int
	leakAfter int
	top       int
	json      bool
}

func newWatchCommand() *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch TARGET",
		Short: "Capture a process periodically and track which stack groups grow",
		Long: `watch captures TARGET every --every, optionally keeps each snapshot in a
directory (rotating, at most --keep files), and prints a table of the largest
groups: their count now, the change since the previous snapshot and since the
first. Groups that grew in each of the last --leak-after snapshots are flagged
as leak suspects. Ctrl-C (or --count) ends it with a final report. With
--json, one JSON object per snapshot is printed on its own line.`,
		Example: `  stackdump watch localhost:6060 --every 30s -o snapshots/ --keep 20
  stackdump watch http://svc:6060 --every 5s --count 12 --json | jq .suspects`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, args[0], o)
		},
	}
	o.addRemoteFlags(cmd)
	f := cmd.Flags()
	f.DurationVar(&o.every, "every", 10*time.Second, "time between snapshots")
	f.IntVar(&o.count, "count", 0, "stop after N snapshots (0: until Ctrl-C)")
	f.StringVarP(&o.dir, "output", "o", "", "keep each snapshot in `DIR`")
	f.IntVar(&o.keep, "keep", 10, "snapshots kept in DIR; older ones are removed")
	f.IntVar(&o.leakAfter, "leak-after", 3, "flag groups that grew in each of the last N snapshots")
	f.IntVar(&o.top, "top", 15, "groups shown in the table")
	f.BoolVar(&o.json, "json", false, "print one JSON line per snapshot instead of the table")
	return cmd
}

// watchHistory follows group counts across snapshots by group key.
type watchHistory struct {
	snapshots int
	totals    []int64
	counts    map[string][]int64 // per key, one count per snapshot
	latest    map[string]*formats.Group
}

// add records a snapshot's groups.
func (h *watchHistory) add(total int64, groups []*formats.Group) {
	if h.counts == nil {
		h.counts = make(map[string][]int64)
	}
	h.latest = make(map[string]*formats.Group, len(groups))
	for _, g := range groups {
		h.latest[g.Key] = g
		if _, ok := h.counts[g.Key]; !ok {
			h.counts[g.Key] = make([]int64, h.snapshots)
		}
	}
	for k, series := range h.counts {
		var n int64
		if g := h.latest[k]; g != nil {
			n = g.Count
		}
		h.counts[k] = append(series, n)
	}
	h.snapshots++
	h.totals = append(h.totals, total)
}

// suspect reports whether key grew in each of the last k snapshots.
func (h *watchHistory) suspect(key string, k int) bool {
	s := h.counts[key]
	if k < 1 || len(s) < k+1 {
		return false
	}
	for i := len(s) - k; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}

// watchRow is one group's line in the table and in --json output.
type watchRow struct {
	Key        string `json:"key"`
	Count      int64  `json:"count"`
	DeltaLast  int64  `json:"delta_last"`
	DeltaFirst int64  `json:"delta_first"`
	State      string `json:"state"`
	Top        string `json:"top"`
	Suspect    bool   `json:"suspect"`
}

// rows returns the current groups, suspects first, then by count.
func (h *watchHistory) rows(leakAfter int) []watchRow {
	var rows []watchRow
	for k, g := range h.latest {
		s := h.counts[k]
		r := watchRow{Key: k, Count: g.Count, DeltaFirst: g.Count - s[0], State: dedupe.MainState(g), Top: dedupe.TopFrameText(g), Suspect: h.suspect(k, leakAfter)}
		if len(s) > 1 {
			r.DeltaLast = g.Count - s[len(s)-2]
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b watchRow) int {
		if a.Suspect != b.Suspect {
			if a.Suspect {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
	return rows
}

func runWatch(cmd *cobra.Command, target string, o watchOptions) error {
	if o.every <= 0 {
		return errors.New("--every must be positive")
	}
	if o.dir != "" {
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			return err
		}
	}
	jobs, err := planCaptures(cmd, []string{target}, o.captureOptions)
	if err != nil {
		return err
	}
	tmpl := jobs[0]
	tmpl.pipe.grouped = o.dir == "" || o.dedupe // nothing to keep: group straight away
	if o.dir != "" && o.format == "" {
		tmpl.pipe.format = formats.FormatJSON
	}
	if o.dir != "" && o.compress == "" {
		tmpl.comp = formats.CompressGzip
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()

	out := cmd.OutOrStdout()
	tty := isTerminal(out) && !o.json
	var h watchHistory
	var kept []string
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for n := 1; ; n++ {
		job := &captureJob{target: tmpl.target, ropts: tmpl.ropts, pipe: tmpl.pipe, comp: tmpl.comp, stdout: io.Discard, stderr: cmd.ErrOrStderr()}
		if o.dir != "" {
			job.path = filepath.Join(o.dir, snapshotName(job.target, time.Now().UTC(), job.pipe.format, job.comp))
		} else {
			job.pipe.format = formats.FormatJSON
		}
		res := captureTarget(ctx, job)
		switch {
		case ctx.Err() != nil:
			writeWatchReport(out, &h, o)
			return nil
		case res.err != nil:
			fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: snapshot %d of %s: %v\n", n, target, res.err)
		default:
			last := res.dumps[len(res.dumps)-1]
			if res.recovered != nil {
				last = *res.recovered
			}
			h.add(last.dump.Total, last.groups)
			if o.dir != "" {
				kept = append(kept, job.path)
				kept = rotate(kept, o.keep, cmd.ErrOrStderr())
			}
			if o.json {
				if err := writeWatchJSON(out, target, &h, o); err != nil {
					return err
				}
			} else {
				writeWatchTable(out, target, &h, o, tty)
			}
		}
		if o.count > 0 && n >= o.count {
			if !o.json {
				writeWatchReport(out, &h, o)
			}
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			if !o.json {
				writeWatchReport(out, &h, o)
			}
			return nil
		}
	}
}

// rotate removes the oldest snapshot files beyond keep.
func rotate(files []string, keep int, stderr io.Writer) []string {
	for keep > 0 && len(files) > keep {
		if err := os.Remove(files[0]); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "stackdump: removing old snapshot: %v\n", err)
		}
		files = files[1:]
	}
	return files
}

func writeWatchTable(w io.Writer, target string, h *watchHistory, o watchOptions, tty bool) {
	var b strings.Builder
	if tty {
		b.WriteString("\033[H\033[2J")
	}
	total := h.totals[len(h.totals)-1]
	fmt.Fprintf(&b, "%s  snapshot %d at %s  total %d (%+d since last, %+d since first)\n",
		target, h.snapshots, time.Now().Format("15:04:05"), total, total-h.totals[max(0, len(h.totals)-2)], total-h.totals[0])
	fmt.Fprintf(&b, "%8s %8s %8s  %-16s %s\n", "COUNT", "Δ LAST", "Δ FIRST", "STATE", "TOP FRAME")
	rows := h.rows(o.leakAfter)
	for _, r := range rows[:min(len(rows), o.top)] {
		flag := ""
		if r.Suspect {
			flag = "  ← leak suspect"
		}
		fmt.Fprintf(&b, "%8d %+8d %+8d  %-16s %s%s\n", r.Count, r.DeltaLast, r.DeltaFirst, truncate(r.State, 16), r.Top, flag)
	}
	if !tty {
		b.WriteString("\n")
	}
	io.WriteString(w, b.String())
}

func writeWatchJSON(w io.Writer, target string, h *watchHistory, o watchOptions) error {
	rows := h.rows(o.leakAfter)
	var suspects []string
	for _, r := range rows {
		if r.Suspect {
			suspects = append(suspects, r.Key)
		}
	}
	line, err := json.Marshal(struct {
		Time     time.Time  `json:"time"`
		Target   string     `json:"target"`
		Snapshot int        `json:"snapshot"`
		Total    int64      `json:"total"`
		Groups   []watchRow `json:"groups"`
		Suspects []string   `json:"suspects"`
	}{time.Now().UTC(), target, h.snapshots, h.totals[len(h.totals)-1], rows[:min(len(rows), o.top)], suspects})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", line)
	return err
}

// writeWatchReport is the final report: totals over time and the suspects
// with their series.
func writeWatchReport(w io.Writer, h *watchHistory, o watchOptions) {
	if h.snapshots == 0 {
		fmt.Fprintln(w, "no snapshot taken")
		return
	}
	fmt.Fprintf(w, "\n%s; total %d → %d (%+d)\n", words.Count(h.snapshots, "snapshot"), h.totals[0], h.totals[len(h.totals)-1], h.totals[len(h.totals)-1]-h.totals[0])
	found := false
	for _, r := range h.rows(o.leakAfter) {
		if !r.Suspect {
			break
		}
		found = true
		fmt.Fprintf(w, "leak suspect %s: %s counts %s\n", r.State, r.Top, countSeries(h.counts[r.Key]))
	}
	if !found {
		fmt.Fprintf(w, "no group grew in each of the last %s\n", words.Count(o.leakAfter, "snapshot"))
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
