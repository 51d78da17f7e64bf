package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

type timelineOptions struct {
	json     bool
	top      int
	maxStuck int
	by       string
	color    string
}

func newTimelineCommand() *cobra.Command {
	var o timelineOptions
	cmd := &cobra.Command{
		Use:   "timeline DUMP...",
		Short: "Follow snapshots of one process: stuck goroutines and threads, new and gone ids, busiest threads",
		Long: `timeline reads dumps of one process taken one after another (repeated
debug=2 captures, repeated jstack or jcmd Thread.print, a file with several
kill -3 dumps) and reports:

  - stuck routines: present in every snapshot with the same id, state and
    stack, with how long at least (from the capture times and the
    runtime's wait minutes);
  - for each snapshot, the ids that are new and those that went away;
  - for JVM threads (matched by id, nid and name), the CPU time each used
    between snapshots (cpu=…ms), busiest first;
  - the largest groups of identical stacks over time.

Snapshots are taken in the order of their capture times when every dump
has one (JVM dumps, stackdump JSON, pprof), else in argument order (and in
file order within a file). Each file is read twice: once for the times,
once for the routines. docs/fleet.md describes --json
(schema stackdump-timeline/v1).`,
		Example: `  for i in 1 2 3; do curl -s 'host:6060/debug/pprof/goroutine?debug=2' > g$i.txt; sleep 30; done
  stackdump timeline g1.txt g2.txt g3.txt
  for i in 1 2 3; do jcmd $PID Thread.print > t$i.txt; sleep 10; done; stackdump timeline t*.txt
  stackdump timeline --json kill3.log | jq '.stuck[] | {count, state, frame}'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTimeline(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "write the timeline as JSON (schema stackdump-timeline/v1)")
	f.IntVar(&o.top, "top", analyze.DefaultTop, "busiest threads and groups to list")
	f.IntVar(&o.maxStuck, "max-stuck", analyze.DefaultTimelineMaxStuck, "rows of stuck routines to list (stuck_total counts them all)")
	f.StringVar(&o.by, "by", "stack", "group routines by: exact, stack or func")
	f.StringVar(&o.color, "color", "auto", "color the text: auto (on a terminal, unless NO_COLOR is set), always or never")
	return cmd
}

// snapshotRef is one dump of one input file.
type snapshotRef struct {
	file int // index in the arguments
	dump int // index of the dump within the file
	at   time.Time
}

func runTimeline(cmd *cobra.Command, files []string, o timelineOptions) error {
	by, err := dedupe.ParseBy(o.by)
	if err != nil {
		return err
	}
	if o.top < 1 || o.maxStuck < 1 {
		return fmt.Errorf("--top %d, --max-stuck %d: want 1 or more", o.top, o.maxStuck)
	}
	color, err := useColor(o.color, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	if slices.Contains(files, "-") {
		return errors.New("timeline reads each file twice (for the capture times, then the routines): give files, not standard input")
	}
	refs, err := timelineOrder(cmd, files)
	if err != nil {
		return err
	}
	tl := analyze.NewTimeline(analyze.TimelineOptions{Top: o.top, MaxStuck: o.maxStuck, By: by})
	err = addSnapshots(cmd, tl, files, refs)
	if tl.Snapshots() > 0 {
		if werr := writeTimeline(cmd.OutOrStdout(), tl.Report(), o.json, color); err == nil {
			err = werr
		}
	}
	return err
}

// timelineOrder reads every dump of every file for its capture time and
// returns the dumps in time order when all have one, else in argument
// order.
func timelineOrder(cmd *cobra.Command, files []string) ([]snapshotRef, error) {
	var refs []snapshotRef
	allTimed := true
	for i, name := range files {
		n := 0
		err := eachDump(cmd, name, func(d *formats.Dump, rd *formats.Reader) error {
			for _, err := range rd.Routines() {
				var pe *formats.ParseError
				if err != nil && !errors.As(err, &pe) {
					return err
				}
			}
			refs = append(refs, snapshotRef{file: i, dump: n, at: d.Source.CapturedAt})
			allTimed = allTimed && !d.Source.CapturedAt.IsZero()
			n++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no dump found", name)
		}
	}
	if allTimed {
		slices.SortStableFunc(refs, func(a, b snapshotRef) int { return a.at.Compare(b.at) })
	}
	return refs, nil
}

// addSnapshots streams the dumps into tl in the order of refs. On an
// error the snapshots added so far stay in tl.
func addSnapshots(cmd *cobra.Command, tl *analyze.Timeline, files []string, refs []snapshotRef) error {
	for _, ref := range refs {
		name := files[ref.file]
		n := 0
		err := eachDump(cmd, name, func(d *formats.Dump, rd *formats.Reader) error {
			defer func() { n++ }()
			if n != ref.dump {
				for range rd.Routines() {
				}
				return nil
			}
			tl.BeginSnapshot(name, d)
			for r, err := range rd.Routines() {
				if err != nil {
					var pe *formats.ParseError
					if errors.As(err, &pe) {
						fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", name, pe)
						if r != nil {
							tl.AddRoutine(r) // the partial routine the error is about
						}
						continue
					}
					tl.EndSnapshot(d) // keep what was read
					return err
				}
				tl.AddRoutine(r)
			}
			tl.EndSnapshot(d)
			if d.Truncated {
				fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: dump %d is truncated; routines past the cut look gone\n", name, ref.dump+1)
			}
			return errStopDumps
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// errStopDumps ends eachDump early without an error.
var errStopDumps = errors.New("stop")

// eachDump calls fn for every dump of the file name; fn reads the dump's
// routines from rd. Errors name the file.
func eachDump(cmd *cobra.Command, name string, fn func(*formats.Dump, *formats.Reader) error) error {
	src, closeIn, err := openInput(cmd, name)
	if err != nil {
		return err
	}
	defer closeIn()
	rd := formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true})
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = fn(d, rd)
		}
		if err == errStopDumps {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

func writeTimeline(w io.Writer, rep *analyze.TimelineReport, asJSON, color bool) error {
	var b bytes.Buffer
	var err error
	if asJSON {
		err = analyze.WriteTimelineJSON(&b, rep)
	} else {
		err = analyze.WriteTimelineText(&b, rep, analyze.TextOptions{Color: color})
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
