package pastecorpus

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stackdump/stackdump/analyze"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

var (
	flagAll    = flag.Bool("paste.all", false, "read every pasted form, not the deterministic sample")
	flagReport = flag.String("paste.report", "", "write the per-transformation table and every failing form to this file")
	flagOnly   = flag.String("paste.only", "", "comma-separated transformation names: read only these")
	flagSeed   = flag.Uint64("paste.seed", 1, "seed of the transformations")
)

// The large dumps of testdata/ (tda_hpux_jdk15_large.log is 690 KB) are
// pasted in one form of every sampleEvery unless -paste.all is given, so
// that the test takes seconds; the choice is by the transformation's
// place in the list, the same on every run.
const (
	sampleAbove = 100 << 10
	sampleEvery = 4
)

// source is one real dump of testdata/ and what the door reads from it.
type source struct {
	name  string
	data  []byte
	dumps []*stack.Dump
	err   error
}

func sources(t *testing.T) []*source {
	t.Helper()
	var out []*source
	seen := map[string]bool{}
	root := dumptest.Testdata(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if paste.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if paste.DetectKind(b) == 0 || seen[string(b)] {
			return nil
		}
		seen[string(b)] = true
		rel, _ := filepath.Rel(root, path)
		out = append(out, &source{name: rel, data: b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func read(b []byte) ([]*stack.Dump, error) {
	return formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
}

// summary is what a paste may not change in a dump: its kind, counts,
// states, crash, deadlocks, races and truncation, and how many frames
// were read.
type summary struct {
	Kind      stack.Kind
	Total     int64
	Routines  int
	Frames    int
	States    string
	Crash     string
	Found     int // deadlocks the lock analysis finds
	Reported  int // deadlocks the JVM reported
	Races     int
	Truncated bool
}

func summarize(d *stack.Dump) summary {
	s := summary{Kind: d.Source.Kind, Total: d.Total, Routines: len(d.Routines), Races: len(d.Races), Truncated: d.Truncated}
	states := map[string]int64{}
	for _, r := range d.Routines {
		states[r.State] += r.Count
		if r.Stack != nil {
			s.Frames += len(r.Stack.Frames)
		}
	}
	keys := make([]string, 0, len(states))
	for k, n := range states {
		keys = append(keys, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(keys)
	s.States = strings.Join(keys, ", ")
	if c := gotext.CrashOf(d.Preamble); c != nil {
		s.Crash = string(c.Kind) + ": " + strings.Join(strings.Fields(c.Message), " ")
	}
	if d.Source.Kind == stack.KindJVMText {
		rep := analyze.Locks(d)
		s.Found, s.Reported = len(rep.Deadlocks), max(rep.ReportedCount, len(rep.Reported))
	}
	return s
}

func summaries(ds []*stack.Dump) []summary {
	out := make([]summary, len(ds))
	for i, d := range ds {
		out[i] = summarize(d)
	}
	return out
}

func warnings(ds []*stack.Dump) []*stack.ParseError {
	var ws []*stack.ParseError
	for _, d := range ds {
		ws = append(ws, d.Warnings...)
	}
	return ws
}

// diffSummaries names the first fields that differ.
func diffSummaries(want, got []summary) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d dumps, want %d (%v)", len(got), len(want), got)
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Sprintf("dump %d:\n  want %+v\n  got  %+v", i, want[i], got[i])
		}
	}
	return ""
}

// knownGaps are the transformations whose forms the readers do not read
// as issue 22 asks yet, and why; forms of them that read wrong are
// reported, not failed. A form of any other transformation that reads
// wrong fails the test.
var knownGaps = map[string]string{
	"soft-wrap":         "long lines broken at a window's width are joined again only where the head (64 KiB) shows the width: two full-width lines followed by their rest; small dumps and dumps whose long lines come later read with warnings",
	"wrapper+soft-wrap": "as soft-wrap",
}

// knownSourceGaps are the dumps of testdata/ whose pasted forms the
// readers do not read as their original yet, and why.
var knownSourceGaps = map[string]string{}

// knownResidue are single forms that read wrong for a reason no reader
// can remove, by transformation and source.
var knownResidue = map[string]string{
	"cut-end go/overflow_go126.txt":                 "the cut fell inside the hex value at the end of a file line (pc=0x48af81 became pc=0x48af): the line still reads whole",
	"syslog wild/zombie_go126.txt":                  "1,011 lines of the runtime's span dump before the first goroutine, each with syslog's prefix and no leading whitespace: the file lines after the first header are not given their tab back, and frames are lost with warnings (not investigated further)",
	"log-fields wild/zombie_go126.txt":              "as syslog",
	"cut-log+journald corpus/go/gotfmt_sigabrt.txt": "the cut fell in the first goroutine, which has no header: with journald's prefix on every line, no goroutine header tells the prefix is a frame",
	"cut-end+chat corpus/go/gotfmt_go7725.txt":      "golang.org/issue/7725's own malformed frames: the goroutine the cut falls in already lost a file line (line 1938); the cut alone and its chat form both read truncated, with one warning more in the latter",
	"fence-half wild/zombie_go126.txt":              "the fence closed inside the runtime's span dump: the 1,000 lines of hex after it hold no line of a stack, so the closing fence ends the paste region",
	"fence-half jvm/threadinfo_jdk17.0.15.txt":      "ThreadInfo.toString text, its second half at column 0: the same threads, states and frames read, but the lock analysis finds one of its two deadlocks (a lock line read without its place, not investigated further)",
	"reversed wild/intellij_jstack-F_jdk8.txt":      "its last thread has no frames: reversed, the dump starts with a header and its frames, and nothing tells it from one in order",
}

// form is one pasted form and what it must read as.
type form struct {
	src     *source
	t       paste.Transform
	glued   *source
	ref     bool // compare with the first (destroying) step alone
	data    []byte
	refData []byte
}

// verdicts.
const (
	vSame      = "same"
	vSameNoted = "same, noted"
	vWarned    = "differs, warned"
	vBlind     = "cut at a line end"
	vGap       = "known gap"
	vBad       = "WRONG"
)

// lineAligned reports whether form is a run of whole lines of data, as a
// cut at line ends or a grep of one group leaves.
func lineAligned(data, form []byte) bool {
	if len(form) == 0 || form[len(form)-1] != '\n' || len(form) >= len(data) {
		return false
	}
	for from := 0; from < len(data); {
		i := bytes.Index(data[from:], form)
		if i < 0 {
			return false
		}
		if at := from + i; at == 0 || data[at-1] == '\n' {
			return true
		}
		from += i + 1
	}
	return false
}

// judge reads f and says how it compares with what it must read as.
func judge(f *form) (verdict, why string) {
	want, wantErr := f.src.dumps, f.src.err
	if f.ref {
		want, wantErr = read(f.refData)
		if n := len(f.refData); n > 0 && f.refData[n-1] != '\n' {
			// The frame gives the cut line back its newline: where
			// nothing in the line tells it was cut, what is left reads
			// as a dump that ends with it.
			if withNL, _ := read(append(bytes.Clone(f.refData), '\n')); diffSummaries(summaries(withNL), summaries(want)) != "" {
				if got, _ := read(f.data); diffSummaries(summaries(withNL), summaries(got)) == "" {
					want = withNL
				}
			}
		}
	}
	if f.glued != nil {
		want = append(slices.Clone(want), f.glued.dumps...)
	}
	got, err := read(f.data)
	if why := misplacedWarning(f.data, got); why != "" {
		return vBad, why
	}
	if err != nil && len(got) == 0 {
		if wantErr != nil && len(want) == 0 {
			return vSame, ""
		}
		if pe, ok := stack.AsParseError(err); ok && pe.Line > 0 && errors.Is(err, stack.ErrNotDump) && f.t.Loss == paste.Destroyed && !f.ref {
			// What the cut left is no dump, and the error names the
			// lines of one it holds (frames without their header).
			return vWarned, err.Error()
		}
		return vBad, "read no dump: " + err.Error()
	}
	d := diffSummaries(summaries(want), summaries(got))
	newWarnings := len(warnings(got)) - len(warnings(want))
	loss := f.t.Loss
	if f.ref {
		loss = paste.Intact // the frame after the cut loses nothing more
		for _, s := range f.t.Steps()[1:] {
			loss = max(loss, s.Loss)
		}
	}
	switch {
	case d == "" && newWarnings <= 0:
		return vSame, ""
	case d == "" && loss != paste.Intact:
		return vSameNoted, firstWarning(got, want)
	case d == "":
		return vBad, "new warning on an intact form: " + firstWarning(got, want)
	case loss != paste.Destroyed:
		return vBad, d
	case len(got) == 0 && len(want) > 0:
		return vBad, "read no dump"
	}
	for _, w := range warnings(got) {
		if w.Line <= 0 {
			return vBad, "warning names no line: " + w.Error()
		}
	}
	if why := lostCrash(f.data, want, got); why != "" {
		return vBad, why
	}
	if why := unwarnedRoutines(want, got); why != "" {
		if lineAligned(f.src.data, f.data) {
			// The paste is the dump's first lines, cut at a line's end:
			// nothing in it tells it from a dump that ends there.
			return vBlind, why
		}
		return vBad, why
	}
	if newWarnings > 0 || truncatedMore(want, got) {
		return vWarned, d
	}
	return vSame, "" // what was left reads exactly as it did in the original
}

// misplacedWarning checks that every warning that quotes its line names
// that line: the line it names holds the text it quotes, at the offset it
// gives.
func misplacedWarning(data []byte, ds []*stack.Dump) string {
	var starts []int
	for i := 0; i < len(data); {
		starts = append(starts, i)
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	for _, w := range warnings(ds) {
		if w.Line < 1 || w.Line > len(starts) {
			return fmt.Sprintf("warning names line %d of %d: %v", w.Line, len(starts), w)
		}
		start := starts[w.Line-1]
		if w.Offset != int64(start) {
			return fmt.Sprintf("warning at line %d gives offset %d, the line starts at %d: %v", w.Line, w.Offset, start, w)
		}
		line := data[start:]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if w.Text != "" && !bytes.Contains(line, bytes.TrimLeft([]byte(w.Text), " \t")) {
			return fmt.Sprintf("warning at line %d quotes %q, not in %q", w.Line, w.Text, line)
		}
	}
	return ""
}

// routineKey describes a routine by every field a reader fills but its
// line number.
func routineKey(r *stack.Routine) string {
	return dumptest.Describe(&stack.Dump{Routines: []*stack.Routine{r}}, dumptest.DescribeOptions{})
}

func raceKey(r *stack.Race) string {
	return dumptest.Describe(&stack.Dump{Races: []*stack.Race{r}}, dumptest.DescribeOptions{})
}

// unwarnedRoutines checks that what a destroyed form reads is what is
// left of the original: every routine and race report it reads is one of
// the original's, or a warning names a line of it (from its first line
// to the next routine's). It returns what breaks that, or "".
func unwarnedRoutines(want, got []*stack.Dump) string {
	have := map[string]int{}
	races := map[string]int{}
	for _, d := range want {
		for _, r := range d.Routines {
			have[routineKey(r)]++
		}
		for _, rc := range d.Races {
			races[raceKey(rc)]++
		}
	}
	for _, d := range got {
		reversed := false
		for _, w := range d.Warnings {
			reversed = reversed || strings.Contains(w.Msg, "lines look reversed")
		}
		covered := func(from, to int) bool {
			if reversed {
				return true // the dump says its lines come in the wrong order
			}
			for _, w := range d.Warnings {
				if w.Line >= from && w.Line <= to {
					return true
				}
			}
			return false
		}
		for i, r := range d.Routines {
			k := routineKey(r)
			if have[k] > 0 {
				have[k]--
				continue
			}
			if len(r.Inferred) > 0 && len(d.Warnings) > 0 {
				continue // its guessed fields, and the dump says so
			}
			if r.Leaked {
				continue
			} else if c := *r; true {
				// A debug=1 profile without its header does not say it is
				// a goroutineleak profile; a warning before its first
				// record says the header is missing.
				c.Leaked = true
				if k2 := routineKey(&c); have[k2] > 0 && len(d.Warnings) > 0 && d.Warnings[0].Line <= d.Routines[0].Line {
					have[k2]--
					continue
				}
			}
			to := 1 << 30
			for _, n := range d.Routines[i+1:] {
				if n.Thread != nil && n.Thread.Virtual && r.Thread != nil && n.Thread.Carrier == r.ID {
					continue // a carrier's lines go on past its mounted thread's
				}
				if n.Line > r.Line {
					to = n.Line
				}
				break
			}
			if r.Thread != nil && r.Thread.Virtual && i > 0 {
				r.Line = min(r.Line, d.Routines[i-1].Line) // read with its carrier
			}
			if !covered(r.Line, to) {
				return fmt.Sprintf("routine %d (id %d, line %d) is none of the original's and no warning names its lines:\n%s", i, r.ID, r.Line, k)
			}
		}
		for i, rc := range d.Races {
			k := raceKey(rc)
			if races[k] > 0 {
				races[k]--
				continue
			}
			to := 1 << 30
			if i+1 < len(d.Races) {
				to = d.Races[i+1].Line
			}
			if !covered(rc.Line, to) {
				return fmt.Sprintf("race %d (line %d) is none of the original's and no warning names its lines", i, rc.Line)
			}
		}
	}
	return ""
}

// lostCrash checks that a destroyed form whose paste still holds the line
// that tells a dump's crash (a SIGQUIT block after the cut, a fatal error
// far down) reads a crash for it: a cut may take lines away, but not hide
// the crash whose line is left. It returns what breaks that, or "".
func lostCrash(data []byte, want, got []*stack.Dump) string {
	kept, read := 0, 0
	var line string
	for _, d := range want {
		for _, l := range d.Preamble {
			if gotext.CrashOf([]string{l}) == nil {
				continue
			}
			if hasLine(data, l) {
				kept++
				line = l
			}
			break
		}
	}
	for _, d := range got {
		if gotext.CrashOf(d.Preamble) != nil {
			read++
		}
	}
	if read < kept {
		return fmt.Sprintf("the paste holds the crash line %q, but %d of the %d dumps that had one read a crash", line, read, kept)
	}
	return ""
}

// hasLine reports whether data holds l as a whole line.
func hasLine(data []byte, l string) bool {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte(l))
		if i < 0 {
			return false
		}
		at, end := from+i, from+i+len(l)
		if (at == 0 || data[at-1] == '\n') && (end == len(data) || data[end] == '\n' || data[end] == '\r') {
			return true
		}
		from = at + 1
	}
}

func truncatedMore(want, got []*stack.Dump) bool {
	n := func(ds []*stack.Dump) (k int) {
		for _, d := range ds {
			if d.Truncated {
				k++
			}
		}
		return k
	}
	return n(got) > n(want)
}

func firstWarning(got, want []*stack.Dump) string {
	ws := warnings(got)
	if k := len(warnings(want)); k < len(ws) {
		return ws[k].Error()
	}
	return ""
}

// glueSources names the dumps glued after a source, as testdata/gen/paste
// chooses them (paste.GlueBases).
func glueSources(s *source, all []*source) map[string]*source {
	g := map[string]*source{}
	for name, base := range paste.GlueBases(s.data) {
		for _, o := range all {
			if filepath.Base(o.name) == base && o != s {
				g[name] = o
				break
			}
		}
	}
	return g
}

// TestPastedCorpus reads the pasted forms of every real dump of testdata/
// and checks each reads as issue 22 requires: an intact form exactly as
// its original (summary equal, no new warning), a reinferred one as its
// original (notes allowed), a destroyed one with a warning that names its
// line wherever it reads otherwise; a glued form as both dumps; a cut that
// is then only framed as the cut alone.
func TestPastedCorpus(t *testing.T) {
	srcs := sources(t)
	for _, s := range srcs {
		s.dumps, s.err = read(s.data)
	}
	only := map[string]bool{}
	for _, n := range strings.Split(*flagOnly, ",") {
		if n != "" {
			only[n] = true
		}
	}
	var forms []*form
	for _, s := range srcs {
		ts := append(paste.All(), paste.Combos()...)
		glued := map[string]*source{}
		for name, o := range glueSources(s, srcs) {
			tr := paste.GlueWith(name, o.data)
			ts = append(ts, tr)
			glued[tr.Name] = o
		}
		for i, tr := range ts {
			if len(only) > 0 && !only[tr.Name] || !tr.Applies(s.data) {
				continue
			}
			if !*flagAll && len(only) == 0 && len(s.data) > sampleAbove && i%sampleEvery != 0 {
				continue // a large dump: every sampleEvery-th form only
			}
			forms = append(forms, &form{src: s, t: tr, glued: glued[tr.Name], ref: tr.FramesALoss()})
		}
	}
	type result struct{ verdict, why string }
	results := make([]result, len(forms))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := forms[i]
				f.data = f.t.Apply(f.src.data, *flagSeed)
				if f.ref {
					f.refData = f.t.ApplyFirst(f.src.data, *flagSeed, 1)
				}
				v, why := judge(f)
				results[i] = result{v, why}
				f.data, f.refData = nil, nil
			}
		}()
	}
	for i := range forms {
		next <- i
	}
	close(next)
	wg.Wait()

	type row struct {
		loss   paste.Loss
		counts map[string]int
	}
	rows := map[string]*row{}
	var order []string
	var report strings.Builder
	bad := 0
	gaps := map[string]int{}
	for i, f := range forms {
		r := rows[f.t.Name]
		if r == nil {
			r = &row{loss: f.t.Loss, counts: map[string]int{}}
			rows[f.t.Name] = r
			order = append(order, f.t.Name)
		}
		res := results[i]
		if res.verdict == vBad {
			if why, ok := knownGaps[f.t.Name]; ok {
				res.verdict = vGap
				gaps[f.t.Name+": "+why]++
			} else if why, ok := knownResidue[f.t.Name+" "+f.src.name]; ok {
				res.verdict = vGap
				gaps[f.t.Name+" of "+f.src.name+": "+why]++
			} else if why, ok := knownSourceGaps[f.src.name]; ok {
				res.verdict = vGap
				gaps[f.src.name+": "+why]++
			}
		}
		r.counts[res.verdict]++
		if res.verdict == vBad {
			bad++
			fmt.Fprintf(&report, "- %s of %s: %s\n", f.t.Name, f.src.name, strings.ReplaceAll(res.why, "\n", "\n    "))
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| transformation | loss | forms | %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|---|---|---|\n", vSame, vSameNoted, vWarned, vBlind, vGap, vBad)
	total := map[string]int{}
	for _, name := range order {
		r := rows[name]
		n := 0
		for v, c := range r.counts {
			n += c
			total[v] += c
		}
		fmt.Fprintf(&table, "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", name, r.loss, n, r.counts[vSame], r.counts[vSameNoted], r.counts[vWarned], r.counts[vBlind], r.counts[vGap], r.counts[vBad])
	}
	fmt.Fprintf(&table, "| all | | %d | %d | %d | %d | %d | %d | %d |\n", len(forms), total[vSame], total[vSameNoted], total[vWarned], total[vBlind], total[vGap], total[vBad])
	var gapList []string
	for g, n := range gaps {
		gapList = append(gapList, fmt.Sprintf("- %d forms: %s", n, g))
	}
	sort.Strings(gapList)
	table.WriteString("\nKnown gaps:\n" + strings.Join(gapList, "\n") + "\n")
	if *flagReport != "" {
		if err := os.WriteFile(*flagReport, []byte(table.String()+"\n"+report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d forms of %d dumps: %d same, %d same with a note, %d differ with a warning, %d cut at a line end, %d known gaps, %d wrong", len(forms), len(srcs), total[vSame], total[vSameNoted], total[vWarned], total[vBlind], total[vGap], total[vBad])
	if bad > 0 {
		t.Errorf("%d pasted forms read wrong:\n%s", bad, report.String())
	}
}
