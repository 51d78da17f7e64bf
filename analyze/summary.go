package analyze

import (
	"slices"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/stack"
)

// Defaults of [Options].
const (
	DefaultTop            = 5
	DefaultLeakMinCount   = 50
	DefaultLeakMinParents = 5
	DefaultLeakMinWait    = 10
	DefaultLeakLargeCount = 1000
	DefaultContentionMin  = 5
	DefaultMaxParents     = 100_000
	// maxRowIDs is how many goroutine ids a row of a summary lists.
	maxRowIDs = 5
)

// Options configure a summary. The zero value means the defaults.
type Options struct {
	// Top is how many rows each section lists; 0 means DefaultTop.
	Top int
	// LeakMinCount is the least number of goroutines parked on a channel
	// or select at one place for the place to be a leak suspect; 0 means
	// DefaultLeakMinCount.
	LeakMinCount int
	// LeakMinParents is how many distinct goroutines must have started a
	// suspect group for that alone to flag it (a worker pool is started by
	// one); 0 means DefaultLeakMinParents.
	LeakMinParents int
	// LeakMinWait is how many minutes a suspect group must have been
	// blocked for its wait to count as evidence; 0 means DefaultLeakMinWait.
	LeakMinWait int
	// LeakLargeCount is the size at which a suspect group counts as
	// evidence by its size alone; 0 means DefaultLeakLargeCount.
	LeakLargeCount int64
	// ContentionMin is how many routines must wait for one lock (or, when
	// the dump does not show which lock, at one place) for a contention
	// finding; 0 means DefaultContentionMin.
	ContentionMin int
	// MaxParents bounds how many distinct parent goroutine ids are counted
	// exactly; children of parents seen after that are counted apart, in
	// Summary.ParentsUncounted. 0 means DefaultMaxParents.
	MaxParents int
	// History, when not nil, holds the groups of the dumps summarised
	// before with it, oldest first: a leak suspect's growth across the
	// dumps of the same process is evidence (leaks.go). Each Summary
	// reads it, then records its own dump.
	History *LeakHistory
}

func (o Options) withDefaults() Options {
	if o.Top <= 0 {
		o.Top = DefaultTop
	}
	if o.LeakMinCount <= 0 {
		o.LeakMinCount = DefaultLeakMinCount
	}
	if o.LeakMinParents <= 0 {
		o.LeakMinParents = DefaultLeakMinParents
	}
	if o.LeakMinWait <= 0 {
		o.LeakMinWait = DefaultLeakMinWait
	}
	if o.LeakLargeCount <= 0 {
		o.LeakLargeCount = DefaultLeakLargeCount
	}
	if o.MaxParents <= 0 {
		o.MaxParents = DefaultMaxParents
	}
	if o.ContentionMin <= 0 {
		o.ContentionMin = DefaultContentionMin
	}
	return o
}

// Summary is the analysis of one dump. Every list is sorted, most
// important first, and holds at most Options.Top rows; empty lists mean
// "none found" unless Missing says the input cannot tell.
type Summary struct {
	Source Source `json:"source"`
	// Crash is what crashed when the dump comes from a crash (a panic, a
	// fatal error, a deadlock, a test timeout, a signal); nil otherwise.
	Crash *Crash `json:"crash,omitempty"`
	// Noun is "goroutines" or "threads".
	Noun   string `json:"noun"`
	Total  int64  `json:"total"`
	Groups int    `json:"groups"`
	// States counts routines per state, most common first; routines
	// without a state (debug=1, pprof) are not counted.
	States []StateCount `json:"states"`
	// Locked counts goroutines locked to their thread.
	Locked int64 `json:"locked"`
	// Missing names what the input cannot carry, so that an empty section
	// is not read as "none": "states", "wait_minutes", "creators", "ids".
	Missing []string `json:"missing,omitempty"`
	// Preamble is the dump's preamble (panic values, fatal errors, signal
	// lines), at most maxPreamble lines; PreambleLines counts them all.
	Preamble      []string `json:"preamble,omitempty"`
	PreambleLines int      `json:"preamble_lines"`
	// Truncated is set when the dump was cut; counts are then lower bounds.
	Truncated bool `json:"truncated"`
	// Findings are the verdicts on the dump, each with its evidence, most
	// alarming first (finding.go): deadlocks, proven leaks, blocked
	// routines, likely leaks, contention, growth across the dumps of
	// Options.History, leak suspects. Empty when nothing was found.
	Findings []Finding `json:"findings"`
	// Warnings are the first parse warnings; WarningCount counts them all.
	Warnings     []Warning `json:"warnings,omitempty"`
	WarningCount int       `json:"warning_count"`

	// TopGroups are the largest groups.
	TopGroups []GroupRow `json:"top_groups"`
	// LongestWaits are the groups with the longest-blocked members.
	LongestWaits []GroupRow `json:"longest_waits"`
	// Leaked are goroutines the runtime marked `(leaked)`, by where they
	// are blocked and who started them; LeakedTotal counts them all.
	Leaked      []LeakedRow `json:"leaked"`
	LeakedTotal int64       `json:"leaked_total"`
	// LikelyLeaks are groups the leak heuristic (leaks.go) flags.
	LikelyLeaks []LeakSuspect `json:"likely_leaks"`
	// Contention is goroutines waiting on locks, by the frame that waits;
	// ContentionTotal counts them all.
	Contention      []ContentionSite `json:"contention"`
	ContentionTotal int64            `json:"contention_total"`
	// GoLocks are the locks goroutines wait for whose address the
	// traceback's arguments show, with their probable holders, deadlocked
	// and most waited for first (golocks.go).
	GoLocks []GoLock `json:"go_locks,omitempty"`
	// Creators are the go statements that started the most live routines.
	Creators []Creator `json:"creators"`
	// Parents are the goroutines that started the most live routines.
	// ParentsUncounted counts children whose parent was past MaxParents.
	Parents          []Parent `json:"parents"`
	ParentsUncounted int64    `json:"parents_uncounted,omitempty"`
	// JVM holds the lock analysis of JVM thread dumps; nil for Go dumps.
	JVM *JVMLocks `json:"jvm,omitempty"`
	// Races are the dump's data races, identical reports folded (races.go);
	// RacesTotal counts the race reports read.
	Races      []RaceRow `json:"races"`
	RacesTotal int       `json:"races_total"`
	// RacesDistinct counts the distinct races (identical reports folded),
	// listed or not.
	RacesDistinct int `json:"races_distinct"`
}

// Source says where the summarised dump came from.
type Source struct {
	Kind       stack.Kind `json:"kind"`
	Runtime    string     `json:"runtime,omitempty"`
	Target     string     `json:"target,omitempty"`
	CapturedAt *time.Time `json:"captured_at,omitempty"`
	// Name is the file the dump was read from, when the caller says.
	Name string `json:"name,omitempty"`
}

// StateCount is how many routines are in one state.
type StateCount struct {
	State string `json:"state"`
	Count int64  `json:"count"`
}

// Warning is a parse warning of the dump.
type Warning struct {
	Line    int    `json:"line,omitempty"`
	Offset  int64  `json:"offset"`
	Message string `json:"message"`
	Text    string `json:"text,omitempty"`
}

// FrameRef names a frame: its function and where it is.
type FrameRef struct {
	Func string `json:"func"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// GroupRow describes one group of identical stacks.
type GroupRow struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
	// State is the members' most common state ("" when most have none);
	// States counts them all, when they have more than one state or some
	// have none (members without a state are not counted).
	State  string           `json:"state,omitempty"`
	States map[string]int64 `json:"states,omitempty"`
	// WaitMin and WaitMax are the members' wait range in minutes.
	WaitMin int `json:"wait_min"`
	WaitMax int `json:"wait_max"`
	// Frame is where the members are, by the one naming rule of
	// dedupe.PlaceOf: the first frame of the program's code or its
	// libraries past the platform's waiting primitives; Wait is that
	// primitive, when there is one ("sync.(*Mutex).Lock").
	Frame *FrameRef `json:"frame,omitempty"`
	Wait  *FrameRef `json:"wait,omitempty"`
	// CreatedBy is the go statement that started the sample member.
	CreatedBy *FrameRef `json:"created_by,omitempty"`
	// IDs are the first member ids.
	IDs []int64 `json:"ids,omitempty"`
	// Labels is the members' most common pprof label set.
	Labels map[string]string `json:"labels,omitempty"`
}

// Analyzer builds a Summary while a dump streams: call Add for each
// routine, then Summary with the dump and its groups. It keeps aggregates
// per distinct frame and creator, never the routines themselves (except,
// for JVM thread dumps, the threads that hold or wait for a lock, for the
// lock graph of [Locks]).
type Analyzer struct {
	opts     Options
	leaked   leakedIndex
	creators creatorIndex
	crash    gotext.CrashWatch
	jvm      LockWatch    // JVM threads with lock lines
	objs     *objectIndex // what goroutines wait on, who carries which address
}

// NewAnalyzer returns an Analyzer of one dump.
func NewAnalyzer(opts Options) *Analyzer {
	opts = opts.withDefaults()
	return &Analyzer{
		opts:     opts,
		leaked:   newLeakedIndex(),
		creators: newCreatorIndex(opts.MaxParents),
		objs:     newObjectIndex(),
	}
}

// Add counts r. Routines may be reused by the caller after Add returns.
func (a *Analyzer) Add(r *stack.Routine) {
	if r == nil {
		return
	}
	if r.Leaked {
		a.leaked.add(r)
	}
	a.creators.add(r)
	a.crash.Add(r)
	a.jvm.Add(r)
	a.objs.add(r)
}

// Summary summarises dump d, whose routines were all given to Add, with
// its groups as built by package dedupe (sorted largest first). Name, when
// not empty, is the file d was read from.
func (a *Analyzer) Summary(d *stack.Dump, groups []*stack.Group, name string) *Summary {
	s := &Summary{
		Source:        sourceOf(d, name),
		Noun:          nounOf(d.Source.Kind),
		Total:         d.Total,
		Groups:        len(groups),
		Missing:       missingOf(d),
		PreambleLines: len(d.Preamble),
		Truncated:     d.Truncated,
		WarningCount:  len(d.Warnings),
	}
	s.Preamble = d.Preamble[:min(len(d.Preamble), maxPreamble)]
	s.Crash = crashOf(d, &a.crash)
	for _, w := range d.Warnings[:min(len(d.Warnings), a.opts.Top)] {
		s.Warnings = append(s.Warnings, Warning{Line: w.Line, Offset: w.Offset, Message: w.Msg, Text: w.Text})
	}
	s.States, s.Locked = stateTotals(groups)
	if isJVM(d.Source.Kind) && stateSum(s.States) < s.Total && !slices.Contains(s.Missing, "states") {
		// JDK 5 dumps and Thread.dump_to_file before JDK 25 print no states.
		s.Missing = append(s.Missing, "states")
	}
	s.TopGroups = topGroups(groups, a.opts.Top)
	s.LongestWaits = longestWaits(groups, a.opts.Top)
	s.Leaked, s.LeakedTotal = a.leaked.rows(a.opts.Top)
	ids := newIDIndex(groups)
	// A crash that printed one goroutine (GOTRACEBACK=single, the
	// default) says nothing of the others: absent is unknown, not exited.
	ids.cut = d.Truncated || s.Crash != nil && d.Total <= 1
	lc := leakContext{ids: ids, objs: a.objs, noInfo: slices.Contains(s.Missing, "creators") && slices.Contains(s.Missing, "wait_minutes")}
	in := findingsInput{d: d, groups: groups, objs: a.objs}
	if h := a.opts.History; h != nil {
		target := d.Source.Target
		lc.earlier = func(key string) []int64 { return h.earlier(target, key) }
		lc.total = func(key string) []int64 { return h.earlierTotal(target, key) }
		lc.kept = func(g *stack.Group) (int, int) { return h.keptSince(target, g, s.Missing) }
		in.growth, in.process = h.growth(d, groups, s.Missing)
	}
	s.LikelyLeaks = likelyLeaks(groups, lc, a.opts)
	s.Contention, s.ContentionTotal = contention(groups, a.opts.Top)
	s.Creators = a.creators.topCreators(a.opts.Top)
	s.Parents, s.ParentsUncounted = a.creators.topParents(a.opts.Top, ids)
	if isJVM(d.Source.Kind) {
		in.jvm = a.jvm.Report(d)
		s.JVM = jvmLocks(in.jvm, a.opts.Top)
		in.objs = nil
	} else {
		s.GoLocks, in.cycles = a.objs.goLocks(func(id int64) *RoutineRef { return routineOf(id, ids) })
	}
	s.Races, s.RacesTotal = RaceRows(d.Races, a.opts.Top)
	s.RacesDistinct = distinctRaces(d.Races)
	s.Findings = a.findings(s, in)
	a.opts.History.record(d, groups, s.Missing)
	s.LikelyLeaks = s.LikelyLeaks[:min(len(s.LikelyLeaks), a.opts.Top)]
	s.GoLocks = s.GoLocks[:min(len(s.GoLocks), a.opts.Top)]
	return s
}

// Summarize summarises a dump held in memory (its Routines filled, as by
// formats.ReadAll). Groups nil means group d by stack here.
func Summarize(d *stack.Dump, groups []*stack.Group, opts Options) *Summary {
	if groups == nil {
		groups = dedupe.Group(d, dedupe.Options{})
	}
	a := NewAnalyzer(opts)
	for _, r := range d.Routines {
		a.Add(r)
	}
	return a.Summary(d, groups, "")
}

// maxPreamble is how many preamble lines a summary keeps.
const maxPreamble = 8

func sourceOf(d *stack.Dump, name string) Source {
	src := Source{Kind: d.Source.Kind, Runtime: d.Source.Runtime, Target: d.Source.Target, Name: name}
	if !d.Source.CapturedAt.IsZero() {
		t := d.Source.CapturedAt
		src.CapturedAt = &t
	}
	return src
}

func isJVM(k stack.Kind) bool { return k == stack.KindJVMText || k == stack.KindJVMJSON }

func nounOf(k stack.Kind) string {
	if isJVM(k) {
		return "threads"
	}
	return "goroutines"
}

// missingOf names what d's encoding cannot carry.
func missingOf(d *stack.Dump) []string {
	var missing []string
	switch d.Source.Kind {
	case stack.KindGoDebug1, stack.KindGoPprof:
		missing = []string{"states", "wait_minutes", "creators", "ids"}
	case stack.KindJVMText, stack.KindJVMJSON:
		missing = []string{"wait_minutes", "creators"}
	}
	if d.Source.Capture != nil {
		for _, m := range d.Source.Capture.Missing {
			if !slices.Contains(missing, m) {
				missing = append(missing, m)
			}
		}
	}
	return missing
}

// Has reports whether the input carried what name stands for ("states",
// "wait_minutes", "creators", "ids").
func (s *Summary) Has(name string) bool { return !slices.Contains(s.Missing, name) }

// routineOf names goroutine id by its group: its state and place; its id
// alone when the groups did not keep it.
func routineOf(id int64, ids *idIndex) *RoutineRef {
	ref := &RoutineRef{ID: id}
	if g, where := ids.find(id); where == present && g != nil {
		ref.State = dedupe.MainState(g)
		ref.Frame = frameRef(dedupe.GroupPlace(g).Frame)
	}
	return ref
}
