package dedupe

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// DiffReport is a diff with what printing it needs.
type DiffReport struct {
	// Result is the diff to print, as Diff returns it.
	Result DiffResult
	// By is the level both sides were grouped at; ByNone, the zero
	// value, means ByStack, as in Options.
	By By
	// Old and New name the two dumps compared, in the report's header.
	Old, New DumpInfo
}

// DumpInfo names one side of a diff.
type DumpInfo struct {
	Name string     // the file name as given; "-" for standard input
	Kind stack.Kind // the format it was read from
}

// DiffSchema names the JSON document WriteDiffJSON writes (docs/dedupe.md).
const DiffSchema = "stackdump-diff/v1"

// WriteDiffText writes rep as a summary and an aligned table, one row per
// changed group with its top frame:
//
//	old  before.txt (go-traceback): 112 goroutines in 9 groups
//	new  after.txt (go-debug1): 1112 goroutines in 10 groups
//	by stack: total +1000 (+892.9%): 1 new, 0 gone, 1 grown, 0 shrunk, 8 unchanged
//
//	CHANGE  OLD   NEW  DELTA        %  STATE         TOP FRAME
//	grown    10  1000   +990  +9900.0%  chan receive  main.worker (worker.go:42)
//	new       0    10    +10        -  IO wait       main.serve (serve.go:7)
func WriteDiffText(w io.Writer, rep DiffReport) error {
	res := rep.Result
	var b []byte
	b = appendSide(b, "old", rep.Old, res.OldTotal, res.OldGroups)
	b = appendSide(b, "new", rep.New, res.NewTotal, res.NewGroups)
	b = fmt.Appendf(b, "by %s: total %s (%s)", rep.By.grouping(), signed(res.Delta()), percentText(res.Delta(), res.OldTotal))
	for i, c := range Changes() {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		b = fmt.Appendf(b, "%s%d %s", sep, res.Count(c), c)
	}
	b = fmt.Appendf(b, ", %d unchanged\n", res.Unchanged)
	if len(res.Entries) == 0 {
		b = append(b, "\nno group changed\n"...)
		_, err := w.Write(b)
		return err
	}
	rows := [][]string{{"CHANGE", "OLD", "NEW", "DELTA", "%", "STATE", "WHERE"}}
	for _, e := range res.Entries {
		rows = append(rows, []string{
			string(e.Change),
			strconv.FormatInt(e.Old, 10),
			strconv.FormatInt(e.New, 10),
			signed(e.Delta),
			percentText(e.Delta, e.Old),
			cmpOr(MainState(e.Group), "-"),
			GroupName(e.Group),
		})
	}
	b = append(b, '\n')
	b = appendTable(b, rows, []bool{false, true, true, true, true, false, false})
	_, err := w.Write(b)
	return err
}

func appendSide(b []byte, label string, d DumpInfo, total int64, groups int) []byte {
	b = fmt.Appendf(b, "%s  %s", label, cmpOr(d.Name, "-"))
	if d.Kind != "" {
		b = fmt.Appendf(b, " (%s)", d.Kind)
	}
	return fmt.Appendf(b, ": %s in %s\n", words.Count(total, routineNoun(d.Kind)), words.Count(groups, "group"))
}

// appendTable writes rows as columns padded to their widest cell, right
// aligned where right says so; the last column is not padded.
func appendTable(b []byte, rows [][]string, right []bool) []byte {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range rows {
		for i, cell := range row {
			pad := widths[i] - len(cell)
			switch {
			case i == len(row)-1:
				b = append(b, cell...)
			case right[i]:
				b = append(b, strings.Repeat(" ", pad)...)
				b = append(b, cell...)
			default:
				b = append(b, cell...)
				b = append(b, strings.Repeat(" ", pad)...)
			}
			if i < len(row)-1 {
				b = append(b, "  "...)
			}
		}
		b = append(b, '\n')
	}
	return b
}

// MainState returns a group's most common state (ties go to the name that
// sorts first); "" when its members have none (debug=1, pprof). Members
// without a state (a JDK 5 thread, a Go 1.2 goroutine printed without a
// header) count as the state "", so that a group mostly without one is
// not named after the few that have one.
func MainState(g *stack.Group) string {
	best, n := "", int64(0)
	var stated int64
	for s, c := range g.States {
		stated += c
		if c > n || c == n && s < best {
			best, n = s, c
		}
	}
	if g.Count-stated >= n {
		return ""
	}
	return best
}

// StateLabel names the states of a group of count members whose states
// counts (Group.States) are states, for a row of a table: the state when
// all members share it, else each state with its count, most common
// first ("12 VM thread, 1 RUNNABLE", "2 RUNNABLE, 1 no state"), so that a
// row is never named after a state only some of its members are in.
func StateLabel(states map[string]int64, count int64) string {
	var stated int64
	for _, n := range states {
		stated += n
	}
	if len(states) == 1 && stated >= count {
		for s := range states {
			return s
		}
	}
	if len(states) == 0 {
		return ""
	}
	type sc struct {
		s string
		n int64
	}
	list := make([]sc, 0, len(states))
	for s, n := range states {
		list = append(list, sc{s, n})
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].n > list[j].n || list[i].n == list[j].n && list[i].s < list[j].s
	})
	var b strings.Builder
	for i, e := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", e.n, e.s)
	}
	if stated < count {
		fmt.Fprintf(&b, ", %d no state", count-stated)
	}
	return b.String()
}

// TopFrameText describes the group's top frame (see TopFrame) as
// "func (file.go:line)", for tables and summaries.
func TopFrameText(g *stack.Group) string {
	if g.Sample == nil {
		return "-"
	}
	f := TopFrame(g.Sample.Stack)
	if f == nil {
		if g.Sample.Unavailable {
			return "(stack unavailable)"
		}
		return "(no frames)"
	}
	if f.File == "" {
		return f.Func
	}
	return fmt.Sprintf("%s (%s:%d)", f.Func, path.Base(strings.ReplaceAll(f.File, `\`, "/")), f.Line)
}

func routineNoun(k stack.Kind) string {
	if k == stack.KindJVMText || k == stack.KindJVMJSON {
		return "threads"
	}
	return "goroutines"
}

func signed(n int64) string {
	if n > 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// percentText is delta relative to base with one decimal, "-" without a base.
func percentText(delta, base int64) string {
	if base == 0 {
		return "-"
	}
	p := percent(delta, base)
	s := strconv.FormatFloat(p, 'f', 1, 64) + "%"
	if p > 0 {
		s = "+" + s
	}
	return s
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// WriteDiffJSON writes rep as one indented JSON document of schema
// DiffSchema, described in docs/dedupe.md.
func WriteDiffJSON(w io.Writer, rep DiffReport) error {
	res := rep.Result
	doc := diffDoc{
		Schema:  DiffSchema,
		By:      rep.By.grouping().String(),
		Old:     sideDoc{Name: rep.Old.Name, Kind: string(rep.Old.Kind), Total: res.OldTotal, Groups: res.OldGroups},
		New:     sideDoc{Name: rep.New.Name, Kind: string(rep.New.Kind), Total: res.NewTotal, Groups: res.NewGroups},
		Delta:   res.Delta(),
		Percent: jsonPercent(res.Delta(), res.OldTotal),
		Counts:  map[string]int{"unchanged": res.Unchanged},
		Changes: make([]changeDoc, 0, len(res.Entries)),
	}
	for _, c := range Changes() {
		doc.Counts[string(c)] = res.Count(c)
	}
	for _, e := range res.Entries {
		cd := changeDoc{
			Change:  string(e.Change),
			Key:     e.Key,
			Old:     e.Old,
			New:     e.New,
			Delta:   e.Delta,
			Percent: jsonPercent(e.Delta, e.Old),
			States:  e.Group.States,
			Stack:   []frameDoc{},
		}
		if s := e.Group.Sample; s != nil {
			if f := TopFrame(s.Stack); f != nil {
				cd.Top = frameDocOf(f)
			}
			if p := PlaceOf(s.Stack); p.Frame != nil {
				cd.Where = frameDocOf(p.Frame)
				if p.Wait != nil {
					cd.Wait = frameDocOf(p.Wait)
				}
			}
			for _, f := range s.Frames() {
				cd.Stack = append(cd.Stack, *frameDocOf(f))
			}
			if s.CreatedBy != nil {
				cd.CreatedBy = frameDocOf(s.CreatedBy)
			}
		}
		doc.Changes = append(doc.Changes, cd)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing diff: %w", err)
	}
	return nil
}

type diffDoc struct {
	Schema  string         `json:"schema"`
	By      string         `json:"by"`
	Old     sideDoc        `json:"old"`
	New     sideDoc        `json:"new"`
	Delta   int64          `json:"delta"`
	Percent *float64       `json:"percent,omitempty"`
	Counts  map[string]int `json:"counts"`
	Changes []changeDoc    `json:"changes"`
}

type sideDoc struct {
	Name   string `json:"name"`
	Kind   string `json:"kind,omitempty"`
	Total  int64  `json:"total"`
	Groups int    `json:"groups"`
}

type changeDoc struct {
	Change    string           `json:"change"`
	Key       string           `json:"key"`
	Old       int64            `json:"old"`
	New       int64            `json:"new"`
	Delta     int64            `json:"delta"`
	Percent   *float64         `json:"percent,omitempty"`
	States    map[string]int64 `json:"states,omitempty"`
	Top       *frameDoc        `json:"top,omitempty"`
	Where     *frameDoc        `json:"where,omitempty"` // the group's name (PlaceOf)
	Wait      *frameDoc        `json:"wait,omitempty"`  // the waiting call under it
	Stack     []frameDoc       `json:"stack"`
	CreatedBy *frameDoc        `json:"created_by,omitempty"`
}

type frameDoc struct {
	Func string `json:"func"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

func frameDocOf(f *stack.Frame) *frameDoc {
	return &frameDoc{Func: f.Func, File: f.File, Line: f.Line}
}

// jsonPercent is the percentage rounded to two decimals, nil without a base.
func jsonPercent(delta, base int64) *float64 {
	if base == 0 {
		return nil
	}
	p := math.Round(percent(delta, base)*100) / 100
	return &p
}
