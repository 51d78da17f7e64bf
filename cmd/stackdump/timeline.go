package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

type timelineOptions struct {
	json         bool
	top          int
	maxStuck     int
	by           string
	color        string
	housekeeping bool
	filters      filterFlags
}

func newTimelineCommand() *cobra.Command {
	var o timelineOptions
	cmd := &cobra.Command{
		Use:  "timeline DUMP...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTimeline(cmd, args, o)
		},
	}
	setHelp(cmd, timelineHelp)
	cmd.Long += "\n\n" + filterHelp
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "write the timeline as JSON (schema stackdump-timeline/v1)")
	f.IntVar(&o.top, "top", analyze.DefaultTop, "busiest threads and groups to list")
	f.IntVar(&o.maxStuck, "max-stuck", analyze.DefaultTimelineMaxStuck, "rows of stuck routines to list (stuck_total counts them all)")
	f.StringVar(&o.by, "by", "stack", "group routines by: exact, stack or func")
	f.StringVar(&o.color, "color", "auto", "color the text: auto (on a terminal, unless NO_COLOR is set), always or never")
	f.BoolVar(&o.housekeeping, "housekeeping", false, "list the idle and housekeeping threads and goroutines row by row, not in one line each")
	o.filters.add(cmd)
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
	flt, err := o.filters.filter()
	if err != nil {
		return err
	}
	opts := analyze.TimelineOptions{Top: o.top, MaxStuck: o.maxStuck, By: by}
	tl := analyze.NewTimeline(opts)
	refs, err := addInArgumentOrder(cmd, tl, files, flt)
	if err == nil {
		if sorted, resort := captureOrder(refs); resort {
			// Read again, in capture order.
			tl = analyze.NewTimeline(opts)
			if slices.Contains(files, "-") {
				err = errors.New("the dumps are not in capture order, and standard input cannot be read again in order: give files")
			} else {
				err = addSnapshots(cmd, tl, files, sorted, flt)
			}
		}
	}
	if tl.Snapshots() > 0 {
		text := analyze.TextOptions{Color: color, ListHousekeeping: o.housekeeping, ListHint: "--housekeeping lists them"}
		if werr := writeTimeline(cmd.OutOrStdout(), tl.Report(), o.json, text); err == nil {
			err = werr
		}
	}
	return err
}

// addInArgumentOrder adds every dump of every file to tl in argument
// order, and returns where each dump is and its capture time.
func addInArgumentOrder(cmd *cobra.Command, tl *analyze.Timeline, files []string, flt *filter.Filter) ([]snapshotRef, error) {
	var refs []snapshotRef
	for i, name := range files {
		n := 0
		err := eachDump(cmd, name, flt, true, func(p *stack.Pipeline) error {
			ref := snapshotRef{file: i, dump: n}
			d, err := addSnapshot(cmd, tl, p, displayName(name), ref, true)
			if d != nil {
				n++
				ref.at = d.Source.CapturedAt
				refs = append(refs, ref)
			}
			return err
		})
		if err != nil {
			return refs, err
		}
		if n == 0 {
			return refs, fmt.Errorf("%s: no dump found", displayName(name))
		}
	}
	return refs, nil
}

// captureOrder returns refs sorted by capture time, and whether that
// differs from their order; refs stay as they are when a dump has no time.
func captureOrder(refs []snapshotRef) ([]snapshotRef, bool) {
	for _, r := range refs {
		if r.at.IsZero() {
			return refs, false
		}
	}
	sorted := slices.Clone(refs)
	slices.SortStableFunc(sorted, func(a, b snapshotRef) int { return a.at.Compare(b.at) })
	return sorted, !slices.Equal(sorted, refs)
}

// skipDump reads a dump past: the stage of a dump that is not wanted.
var skipDump = stack.RoutineFunc(func(*stack.Routine) {})

// addSnapshots adds the dumps of refs to tl in that order, reading each
// file again up to the dump wanted. Warnings were told in the first pass.
func addSnapshots(cmd *cobra.Command, tl *analyze.Timeline, files []string, refs []snapshotRef, flt *filter.Filter) error {
	for _, ref := range refs {
		name := files[ref.file]
		n := 0
		err := eachDump(cmd, name, flt, false, func(p *stack.Pipeline) error {
			if n < ref.dump {
				n++
				p.Encoder, p.OnWarning = skipDump, nil
				_, err := p.Next(context.Background())
				return err
			}
			if _, err := addSnapshot(cmd, tl, p, name, ref, false); err != nil {
				return err
			}
			return errStopDumps
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// addSnapshot streams the next dump of p into tl as one snapshot and
// returns it (nil at the end of the input). On an error the routines read
// so far stay in it. warn tells the parse warnings and truncation on
// standard error.
func addSnapshot(cmd *cobra.Command, tl *analyze.Timeline, p *stack.Pipeline, name string, ref snapshotRef, warn bool) (*stack.Dump, error) {
	p.Encoder, p.OnWarning = snapshotStage{tl: tl, name: name}, nil
	if warn {
		p.OnWarning = func(pe *stack.ParseError) {
			fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: %v\n", name, pe)
		}
	}
	d, err := p.Next(context.Background())
	if err != nil {
		if d != nil {
			tl.EndSnapshot(d) // stopped half way: EndDump was not called
		}
		return d, err
	}
	if d.Truncated && warn {
		fmt.Fprintf(cmd.ErrOrStderr(), "stackdump: warning: %s: dump %d is truncated; routines past the cut look gone\n", name, ref.dump+1)
	}
	return d, nil
}

// snapshotStage is a Timeline as the last stage of a stack.Pipeline:
// the dump is one snapshot called name.
type snapshotStage struct {
	tl   *analyze.Timeline
	name string
}

func (s snapshotStage) BeginDump(d *stack.Dump) error {
	s.tl.BeginSnapshot(s.name, d)
	return nil
}

func (s snapshotStage) WriteRoutine(r *stack.Routine) error {
	s.tl.AddRoutine(r)
	return nil
}

func (s snapshotStage) EndDump(d *stack.Dump) error {
	s.tl.EndSnapshot(d)
	return nil
}

// errStopDumps ends eachDump early without an error.
var errStopDumps = errors.New("stop")

// eachDump opens the file name and calls fn until the end of its dumps
// (fn's io.EOF, as Pipeline.Next returns it); fn streams the next dump
// through p, a stack.Pipeline reading the file (through flt, --focus and
// --ignore, when not nil) whose stage fn sets. Errors name the file; with
// note, what the filter kept is said on standard error.
func eachDump(cmd *cobra.Command, name string, flt *filter.Filter, note bool, fn func(p *stack.Pipeline) error) error {
	src, closeIn, err := openInput(cmd, name)
	if err != nil {
		return err
	}
	defer closeIn()
	rd, filtered := filterInput(flt, formats.NewReader(src, formats.ReadOptions{ReuseRoutines: true}))
	if note {
		defer filtered.note(cmd.ErrOrStderr(), displayName(name))
	}
	p := &stack.Pipeline{Source: rd}
	for {
		err := fn(p)
		if err == io.EOF || err == errStopDumps {
			return nil
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", displayName(name), err)
			if cutInput(err) { // the rule for cut input (inputcut.go): the dump read until the cut was added
				if note {
					keepCut(cmd.ErrOrStderr(), err)
				}
				return nil
			}
			return err
		}
	}
}

func writeTimeline(w io.Writer, rep *analyze.TimelineReport, asJSON bool, text analyze.TextOptions) error {
	var b bytes.Buffer
	var err error
	if asJSON {
		err = analyze.WriteTimelineJSON(&b, rep)
	} else {
		err = analyze.WriteTimelineText(&b, rep, text)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
