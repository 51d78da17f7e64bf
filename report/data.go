package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// The JSON document the page renders. docs/report.md describes it; field
// names are short but spelled out, since a page of 10,000 groups repeats
// them 10,000 times.

// docVersion is the version of the embedded document's shape.
const docVersion = 1

type pageDoc struct {
	Version   int          `json:"version"`
	Title     string       `json:"title"`
	Generated string       `json:"generated,omitempty"`
	Strings   []string     `json:"strings"`
	Frames    []frameRow   `json:"frames"`
	Inputs    []inputDoc   `json:"inputs"`
	Timeline  *timelineDoc `json:"timeline,omitempty"`
	// SeriesFindings are the findings of the dumps as snapshots of one
	// process (analyze.TimelineReport.Findings: stuck, deadlocked,
	// grown); absent for one dump.
	SeriesFindings []analyze.Finding `json:"seriesFindings,omitempty"`
	// SeriesAnalyzed is set when the dumps were analysed as a series (an
	// empty SeriesFindings is then "nothing found", not "not looked").
	SeriesAnalyzed bool `json:"seriesAnalyzed,omitempty"`
}

// frameRow is [func, file, line, flags, package] or, with a module,
// [func, file, line, flags, package, module]; strings are indexes into
// pageDoc.Strings.
type frameRow []int

// Frame flags.
const (
	flagRuntime = 1 << iota // the Go runtime's or the JVM's internals
	flagInlined             // an inlined call
	flagNative              // a native or cgo frame
	flagStd                 // the standard library (formats.Frame.IsStdlib: Go's, the JDK's), runtime included
)

type inputDoc struct {
	Name       string     `json:"name"`
	Kind       stack.Kind `json:"kind"`
	Noun       string     `json:"noun"` // "goroutines" or "threads"
	Runtime    string     `json:"runtime,omitempty"`
	Target     string     `json:"target,omitempty"`
	CapturedAt string     `json:"capturedAt,omitempty"`
	// At is when the dump was taken, for the timeline's axis: its capture
	// time, else its file's modification time (AtFrom "captured" or
	// "modified"), RFC 3339 in UTC with milliseconds.
	At        string      `json:"at,omitempty"`
	AtFrom    string      `json:"atFrom,omitempty"`
	Capture   *captureDoc `json:"capture,omitempty"`
	Total     int64       `json:"total"`
	Truncated bool        `json:"truncated,omitempty"`
	Preamble  []string    `json:"preamble,omitempty"`
	// Crash is what crashed when the dump comes from a crash.
	Crash *crashDoc `json:"crash,omitempty"`
	// Findings are the dump's verdicts with their evidence, as stackdump
	// analyze makes them (analyze.Summary.Findings), most alarming first;
	// Clear the checks that found nothing; Analyzed is set when the dump
	// was analysed at all. GoLocks are the locks goroutines wait for, by
	// address, with their probable holders.
	Findings []analyze.Finding `json:"findings,omitempty"`
	Clear    []string          `json:"clear,omitempty"`
	Analyzed bool              `json:"analyzed,omitempty"`
	GoLocks  []analyze.GoLock  `json:"goLocks,omitempty"`
	// Locks is the lock analysis of a JVM dump: deadlock cycles and the
	// locks threads wait for; absent for Go dumps and JVM dumps without
	// either.
	Locks *locksDoc `json:"locks,omitempty"`
	// Races are the dump's data races, identical reports folded
	// (analyze.RaceRows), at most maxRaces; RacesTotal counts the reports.
	Races      []analyze.RaceRow `json:"races,omitempty"`
	RacesTotal int               `json:"racesTotal,omitempty"`
	Warnings   []warningDoc      `json:"warnings,omitempty"`
	// WarningsMore counts warnings past the ones listed.
	WarningsMore int        `json:"warningsMore,omitempty"`
	Groups       []groupDoc `json:"groups"`
	// GroupsOmitted and RoutinesOmitted count the groups past
	// Options.MaxGroups and their members.
	GroupsOmitted   int   `json:"groupsOmitted,omitempty"`
	RoutinesOmitted int64 `json:"routinesOmitted,omitempty"`
	// OmittedStates counts the omitted groups' members per state, so
	// that the page's state totals are the whole dump's.
	OmittedStates []stateDoc `json:"omittedStates,omitempty"`
}

// crashDoc is a dump's crash (gotext.CrashOf): kind, message, the
// goroutine that crashed (0 when unknown) and the index of the group that
// holds it (-1 when not listed).
type crashDoc struct {
	Kind      gotext.CrashKind `json:"kind"`
	Message   string           `json:"message"`
	Goroutine int64            `json:"goroutine"`
	Group     int              `json:"group"`
}

type warningDoc struct {
	Line   int    `json:"line,omitempty"`
	Offset int64  `json:"offset"`
	Msg    string `json:"msg"`
	Text   string `json:"text,omitempty"`
}

type groupDoc struct {
	Key    string     `json:"key"`
	Count  int64      `json:"count"`
	States []stateDoc `json:"states,omitempty"`
	// Wait is [min, max] minutes; absent when no member waited a minute.
	Wait   []int `json:"wait,omitempty"`
	Locked int64 `json:"locked,omitempty"`
	// Leaked counts members the runtime proved leaked ("(leaked)").
	Leaked  int64      `json:"leaked,omitempty"`
	Labels  []labelDoc `json:"labels,omitempty"`
	IDs     []int64    `json:"ids,omitempty"`
	MoreIDs int64      `json:"moreIds,omitempty"`
	Parents []int64    `json:"parents,omitempty"`
	// MoreParents counts creator ids past the ones listed.
	MoreParents int `json:"moreParents,omitempty"`
	// Stack lists frame indexes, innermost first.
	Stack  []int      `json:"stack"`
	Elided *elidedDoc `json:"elided,omitempty"`
	// Creator is the frame of the go statement that started the sample.
	Creator *int `json:"creator,omitempty"`
	// Place is the frame that names the group, by the rule of every
	// table (dedupe.PlaceOf: the program's code past the platform's
	// waiting primitives), and PlaceWait the primitive under it.
	Place     *int `json:"place,omitempty"`
	PlaceWait *int `json:"placeWait,omitempty"`
	// ParentGroups are the groups holding the creating goroutines, found
	// by id; CreatorGroups, when no parent was found, the groups running
	// the creator function.
	ParentGroups  []int  `json:"parentGroups,omitempty"`
	CreatorGroups []int  `json:"creatorGroups,omitempty"`
	Name          string `json:"name,omitempty"` // the sample's thread name
	Unavailable   bool   `json:"unavailable,omitempty"`
	Daemon        bool   `json:"daemon,omitempty"`
	Virtual       bool   `json:"virtual,omitempty"`
}

type stateDoc struct {
	State string `json:"s"`
	Count int64  `json:"n"`
}

type labelDoc struct {
	Set   [][2]string `json:"set"`
	Count int64       `json:"n"`
}

type elidedDoc struct {
	At    int `json:"at"`
	Count int `json:"n,omitempty"` // 0: unknown
}

type timelineDoc struct {
	Totals []int64     `json:"totals"`
	Series []seriesDoc `json:"series"`
}

type seriesDoc struct {
	Key    string  `json:"key"`
	Label  string  `json:"label"`
	Counts []int64 `json:"counts"`
}

// timeMillis is RFC 3339 with milliseconds, always three digits.
const timeMillis = "2006-01-02T15:04:05.000Z07:00"

// Caps on what a dump's summary lists.
const (
	maxPreambleLines = 400
	maxWarnings      = 500
	maxWarningText   = 300
	maxRaces         = 50
)

// buildDoc builds the page's document from the inputs, grouping those that
// come without groups.
func buildDoc(inputs []Input, opts Options) *pageDoc {
	doc := &pageDoc{Version: docVersion, Title: opts.Title}
	if !opts.Generated.IsZero() {
		doc.Generated = opts.Generated.UTC().Format(time.RFC3339)
	}
	if doc.Title == "" {
		doc.Title = defaultTitle(inputs)
	}
	tab := newDocTable()
	all := make([][]*stack.Group, len(inputs))
	history := analyze.NewLeakHistory()
	for i, in := range inputs {
		groups := in.Groups
		if groups == nil {
			groups = dedupe.Group(in.Dump, opts.Group)
		}
		all[i] = groups
		if in.Summary == nil && len(in.Dump.Routines) > 0 {
			in.Summary = analyze.Summarize(in.Dump, groups, analyze.Options{History: history})
		}
		doc.Inputs = append(doc.Inputs, buildInput(tab, i, in, groups, opts))
	}
	if len(inputs) > 1 {
		doc.Timeline = buildTimeline(all, inputs, opts.Series)
		rep := opts.Timeline
		if rep == nil {
			rep = seriesTimeline(inputs, opts)
		}
		if rep != nil {
			doc.SeriesFindings, doc.SeriesAnalyzed = rep.Findings, true
		}
	}
	doc.Strings, doc.Frames = tab.strs, tab.frames
	return doc
}

func defaultTitle(inputs []Input) string {
	name := inputName(inputs[0], 0)
	if len(inputs) == 1 {
		return "stackdump report: " + name
	}
	return fmt.Sprintf("stackdump report: %s and %d more", name, len(inputs)-1)
}

func inputName(in Input, i int) string {
	switch {
	case in.Name != "":
		return in.Name
	case in.Dump.Source.Target != "":
		return in.Dump.Source.Target
	}
	return fmt.Sprintf("dump %d", i+1)
}

func buildInput(tab *docTable, i int, in Input, groups []*stack.Group, opts Options) inputDoc {
	d := in.Dump
	jvm := isJVM(d.Source.Kind)
	out := inputDoc{
		Name:      inputName(in, i),
		Kind:      d.Source.Kind,
		Noun:      "goroutines",
		Runtime:   d.Source.Runtime,
		Target:    d.Source.Target,
		Total:     d.Total,
		Truncated: d.Truncated,
		Groups:    []groupDoc{},
	}
	if jvm {
		out.Noun = "threads"
	}
	if !d.Source.CapturedAt.IsZero() {
		out.CapturedAt = d.Source.CapturedAt.Format(time.RFC3339)
		out.At, out.AtFrom = d.Source.CapturedAt.UTC().Format(timeMillis), "captured"
	} else if !in.ModTime.IsZero() {
		out.At, out.AtFrom = in.ModTime.UTC().Format(timeMillis), "modified"
	}
	if c := d.Source.Capture; c != nil {
		out.Capture = buildCapture(c)
	}
	out.Preamble = d.Preamble[:min(len(d.Preamble), maxPreambleLines)]
	for _, w := range d.Warnings[:min(len(d.Warnings), maxWarnings)] {
		out.Warnings = append(out.Warnings, warningDoc{Line: w.Line, Offset: w.Offset, Msg: w.Msg, Text: clip(w.Text, maxWarningText)})
	}
	out.WarningsMore = len(d.Warnings) - len(out.Warnings)
	if len(d.Races) > 0 {
		out.Races, out.RacesTotal = analyze.RaceRows(d.Races, maxRaces)
	}

	var sum int64
	for _, g := range groups {
		sum += g.Count
	}
	if out.Total == 0 {
		out.Total = sum
	}
	groups = provenFirst(groups)
	shown := groups[:min(len(groups), opts.MaxGroups)]
	omitted := map[string]int64{}
	for _, g := range groups[len(shown):] {
		out.GroupsOmitted++
		out.RoutinesOmitted += g.Count
		for s, n := range g.States {
			omitted[s] += n
		}
	}
	out.OmittedStates = sortedStates(omitted)
	links := findCreatorGroups(shown)
	out.Groups = make([]groupDoc, len(shown))
	for gi, g := range shown {
		out.Groups[gi] = buildGroup(tab, g, jvm, opts.MaxIDs)
		out.Groups[gi].ParentGroups = links[gi].parents
		out.Groups[gi].CreatorGroups = links[gi].creators
	}
	out.Crash = buildCrash(in, out.Groups)
	if s := in.Summary; s != nil {
		out.Analyzed = true
		out.Findings, out.Clear, out.GoLocks = s.Findings, s.Clear(), s.GoLocks
	}
	if jvm {
		rep := in.Locks
		if rep == nil && len(d.Routines) > 0 {
			rep = analyze.Locks(d)
		}
		out.Locks = buildLocks(tab, rep, out.Groups, opts.Group)
	}
	return out
}

// buildCrash describes the crash in's dump comes from; nil when none.
func buildCrash(in Input, groups []groupDoc) *crashDoc {
	c := gotext.CrashOf(in.Dump.Preamble)
	if c == nil {
		return nil
	}
	culprit := in.Culprit
	if culprit == nil && in.Groups == nil {
		var w gotext.CrashWatch
		for _, r := range in.Dump.Routines {
			w.Add(r)
		}
		culprit = w.Culprit(c)
	}
	out := &crashDoc{Kind: c.Kind, Message: c.Message, Group: -1}
	if culprit != nil {
		out.Goroutine = culprit.ID
		for gi, g := range groups {
			if slices.Contains(g.IDs, culprit.ID) {
				out.Group = gi
				break
			}
		}
	}
	return out
}

// sortedStates lists counts per state, most common first; nil for none.
func sortedStates(states map[string]int64) []stateDoc {
	var out []stateDoc
	for s, n := range states {
		out = append(out, stateDoc{State: s, Count: n})
	}
	slices.SortFunc(out, func(a, b stateDoc) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.State, b.State)
	})
	return out
}

func buildGroup(tab *docTable, g *stack.Group, jvm bool, maxIDs int) groupDoc {
	out := groupDoc{Key: g.Key, Count: g.Count, Locked: g.Locked, Leaked: g.Leaked, Stack: []int{}}
	out.States = sortedStates(g.States)
	if g.WaitMax > 0 {
		out.Wait = []int{g.WaitMin, g.WaitMax}
	}
	for _, lc := range g.Labels {
		ld := labelDoc{Count: lc.Count, Set: make([][2]string, len(lc.Labels))}
		for i, l := range lc.Labels {
			ld.Set[i] = [2]string{l.Key, l.Value}
		}
		out.Labels = append(out.Labels, ld)
	}
	out.IDs = g.IDs[:min(len(g.IDs), maxIDs)]
	out.MoreIDs = g.MoreIDs + int64(len(g.IDs)-len(out.IDs))
	out.Parents = g.ParentIDs[:min(len(g.ParentIDs), maxIDs)]
	out.MoreParents = len(g.ParentIDs) - len(out.Parents)
	if len(out.IDs) == 1 && out.IDs[0] == 0 {
		out.IDs = nil // inputs without ids
	}
	if len(out.Parents) == 1 && out.Parents[0] == 0 {
		out.Parents = nil
	}
	r := g.Sample
	if r == nil {
		return out
	}
	if st := r.Stack; st != nil {
		for _, f := range st.Frames {
			out.Stack = append(out.Stack, tab.frame(f, jvm))
		}
		if st.Elided {
			out.Elided = &elidedDoc{At: st.ElidedAt, Count: st.ElidedCount}
		}
		if p := dedupe.PlaceOf(st); p.Frame != nil {
			fi := tab.frame(p.Frame, jvm)
			out.Place = &fi
			if p.Wait != nil {
				wi := tab.frame(p.Wait, jvm)
				out.PlaceWait = &wi
			}
		}
	}
	if r.CreatedBy != nil {
		fi := tab.frame(r.CreatedBy, jvm)
		out.Creator = &fi
	}
	out.Name = r.Name
	out.Unavailable = r.Unavailable
	if t := r.Thread; t != nil {
		out.Daemon, out.Virtual = t.Daemon, t.Virtual
	}
	return out
}

// provenFirst puts the groups holding goroutines the runtime proved
// leaked first, largest proof first, and keeps the order of the rest:
// proof ranks above size. It returns groups itself when none is proven.
func provenFirst(groups []*stack.Group) []*stack.Group {
	if !slices.ContainsFunc(groups, func(g *stack.Group) bool { return g.Leaked > 0 }) {
		return groups
	}
	out := slices.Clone(groups)
	slices.SortStableFunc(out, func(a, b *stack.Group) int { return cmp.Compare(b.Leaked, a.Leaked) })
	return out
}

func isJVM(k stack.Kind) bool { return k == stack.KindJVMText || k == stack.KindJVMJSON }

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// seriesTimeline analyses inputs held in memory (their Routines) as
// snapshots of one process, in the order given; nil when one has none.
func seriesTimeline(inputs []Input, opts Options) *analyze.TimelineReport {
	for _, in := range inputs {
		if len(in.Dump.Routines) == 0 {
			return nil
		}
	}
	tl := analyze.NewTimeline(analyze.TimelineOptions{By: opts.Group.By})
	for _, in := range inputs {
		tl.Add(in.Dump)
	}
	return tl.Report()
}
