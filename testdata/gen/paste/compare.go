package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/stackdump/stackdump/internal/paste"
)

// reading is what stackdump made of one file.
type reading struct {
	failed   string // the error stackdump printed when it read no dump
	dumps    []dumpReading
	routines int // from convert --format json
	frames   int
}

// dumpReading is one dump of analyze --json, cut to what a paste may change.
type dumpReading struct {
	Kind      string
	Total     int
	States    string
	Crash     string
	Deadlocks int // found by the analysis
	Reported  int // reported by the JVM
	Races     int
	Truncated bool
	Warnings  int
}

// analysis is the part of analyze --json that is compared.
type analysis struct {
	Dumps []struct {
		Source struct{ Kind string }
		Total  int
		States []struct {
			State string
			Count int
		}
		Crash *struct {
			Kind, Message string
			Goroutine     *int64
		}
		RacesTotal   int  `json:"races_total"`
		Truncated    bool `json:"truncated"`
		WarningCount int  `json:"warning_count"`
		JVM          *struct {
			Deadlocks         []json.RawMessage
			ReportedDeadlocks int `json:"reported_deadlocks"`
		}
	}
}

// read runs stackdump on file.
func read(bin, file string) reading {
	var r reading
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "analyze", "-q", "--json", "--color", "never", file)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var a analysis
	if jerr := json.Unmarshal(out, &a); jerr != nil || (err != nil && len(a.Dumps) == 0) {
		r.failed = strings.TrimSpace(lastLine(stderr.String()))
		if r.failed == "" {
			r.failed = fmt.Sprint(err, jerr)
		}
		return r
	}
	for _, d := range a.Dumps {
		dr := dumpReading{Kind: d.Source.Kind, Total: d.Total, Races: d.RacesTotal, Truncated: d.Truncated, Warnings: d.WarningCount}
		var states []string
		for _, s := range d.States {
			states = append(states, fmt.Sprintf("%d %s", s.Count, s.State))
		}
		dr.States = strings.Join(states, ", ")
		if d.Crash != nil {
			dr.Crash = d.Crash.Kind + ": " + d.Crash.Message
			if d.Crash.Goroutine != nil {
				dr.Crash += fmt.Sprintf(" (goroutine %d)", *d.Crash.Goroutine)
			}
		}
		if d.JVM != nil {
			dr.Deadlocks, dr.Reported = len(d.JVM.Deadlocks), d.JVM.ReportedDeadlocks
		}
		r.dumps = append(r.dumps, dr)
	}
	cmd = exec.Command(bin, "convert", "-q", "--format", "json", file)
	if out, err := cmd.Output(); err == nil {
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var doc struct {
				Goroutines []struct{ Stack []json.RawMessage }
			}
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) || err != nil {
				break
			}
			for _, g := range doc.Goroutines {
				r.routines++
				r.frames += len(g.Stack)
			}
		}
	}
	return r
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// warnings is the sum of the dumps' warnings, plus one per truncated dump.
func (r reading) signals() int {
	n := 0
	for _, d := range r.dumps {
		n += d.Warnings
		if d.Truncated {
			n++
		}
	}
	return n
}

// diff names what differs between the original's reading and the form's,
// as "field: original → form".
func diff(o, p reading) []string {
	var d []string
	add := func(field string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			d = append(d, fmt.Sprintf("%s: %v → %v", field, short(a), short(b)))
		}
	}
	if p.failed != "" {
		return []string{"read no dump: " + p.failed}
	}
	add("dumps", len(o.dumps), len(p.dumps))
	for i := 0; i < min(len(o.dumps), len(p.dumps)); i++ {
		a, b := o.dumps[i], p.dumps[i]
		pre := ""
		if len(o.dumps) > 1 || len(p.dumps) > 1 {
			pre = fmt.Sprintf("dump %d ", i+1)
		}
		add(pre+"kind", a.Kind, b.Kind)
		add(pre+"total", a.Total, b.Total)
		if a.Total == b.Total {
			add(pre+"states", a.States, b.States)
		}
		add(pre+"crash", orNone(a.Crash), orNone(b.Crash))
		add(pre+"deadlocks found", a.Deadlocks, b.Deadlocks)
		add(pre+"deadlocks reported", a.Reported, b.Reported)
		add(pre+"races", a.Races, b.Races)
		add(pre+"truncated", a.Truncated, b.Truncated)
	}
	if len(o.dumps) == len(p.dumps) {
		add("frames", o.frames, p.frames)
	}
	return d
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func short(v any) string {
	s := strings.ReplaceAll(fmt.Sprint(v), "\n", `\n`)
	if len(s) > 70 {
		s = s[:67] + "..."
	}
	return s
}

// verdict classes, in the order of the report's columns.
const (
	vSame     = "same"         // read as the original, no new warning
	vNoisy    = "same, warned" // read as the original, with a new warning
	vWarned   = "differs, warned"
	vSilent   = "differs silently"
	vRefused  = "no dump read"
	vExpected = "expected"
)

// judge classes one form's reading against its original's.
func judge(o, p reading) (string, []string) {
	d := diff(o, p)
	warned := p.signals() > o.signals()
	switch {
	case p.failed != "" && o.failed != "":
		return vSame, nil // neither read a dump
	case p.failed != "":
		return vRefused, d
	case len(d) == 0 && !warned:
		return vSame, nil
	case len(d) == 0:
		return vNoisy, []string{fmt.Sprintf("warnings+truncation: %d → %d", o.signals(), p.signals())}
	case warned:
		return vWarned, d
	default:
		return vSilent, d
	}
}

// compareForms reads every original and form with bin and writes the
// comparison as Markdown.
func compareForms(w io.Writer, bin, out string, sources []*source, forms []form) (err error) {
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	orig := make(map[*source]reading, len(sources))
	for _, s := range sources {
		orig[s] = read(bin, s.path)
	}
	var tsv strings.Builder
	defer func() {
		if err == nil {
			err = os.WriteFile(filepath.Join(out, "results.tsv"), []byte(tsv.String()), 0o644)
		}
	}()
	type result struct {
		verdict string
		diff    []string
	}
	results := make([]result, len(forms))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				p := read(bin, filepath.Join(out, forms[i].file))
				want := orig[forms[i].source]
				if forms[i].ref != "" {
					want = read(bin, filepath.Join(out, forms[i].ref))
				}
				if g := forms[i].glued; g != nil {
					// Both dumps must be read: the original's, then the glued one's.
					want.dumps = append(append([]dumpReading{}, want.dumps...), orig[g].dumps...)
					want.routines += orig[g].routines
					want.frames += orig[g].frames
				}
				v, d := judge(want, p)
				results[i] = result{v, d}
			}
		})
	}
	for i := range forms {
		next <- i
	}
	close(next)
	wg.Wait()

	columns := []string{vSame, vNoisy, vWarned, vSilent, vRefused}
	type row struct {
		name   string
		loss   paste.Loss
		counts map[string]int
		worst  []string
	}
	rows := map[string]*row{}
	var order []string
	for i, f := range forms {
		name := f.transform.Name
		r := rows[name]
		if r == nil {
			r = &row{name: name, loss: f.transform.Loss, counts: map[string]int{}}
			rows[name] = r
			order = append(order, name)
		}
		v := results[i].verdict
		r.counts[v]++
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%s\t%s\n", f.file, name, f.transform.Loss, v, strings.Join(results[i].diff, "; "))
		expectLoss := f.transform.Loss == paste.Destroyed && f.ref == ""
		bad := v == vSilent || v == vRefused || (!expectLoss && v != vSame)
		if bad && len(r.worst) < 4 {
			r.worst = append(r.worst, fmt.Sprintf("%s (%s): %s", filepath.Base(f.source.path), v, strings.Join(results[i].diff, "; ")))
		}
	}
	fmt.Fprintf(w, "Read by `%s analyze --json` and `convert --format json`: %d pasted forms of %d dumps. "+
		"Each form is compared with its original (a glued form with both dumps, a framed cut such as cut-end+fence with the cut alone): "+
		"*same* reads as it with no new warning, *same, warned* adds a warning or a truncation mark, "+
		"*differs, warned* reads otherwise with a new warning or truncation mark, *differs silently* reads otherwise without one, "+
		"*no dump read* is an error.\n\n",
		filepath.Base(bin), len(forms), len(sources))
	fmt.Fprintf(w, "| transformation | loss | forms | %s |\n|---|---|---|%s\n", strings.Join(columns, " | "), strings.Repeat("---|", len(columns)))
	for _, name := range order {
		r := rows[name]
		fmt.Fprintf(w, "| %s | %s | %d |", r.name, r.loss, sum(r.counts))
		for _, c := range columns {
			fmt.Fprintf(w, " %d |", r.counts[c])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nFirst forms per transformation that read wrong (a loss-free form that does not read as its original, or any form whose difference has no warning):\n\n")
	sort.Strings(order)
	for _, name := range order {
		if r := rows[name]; len(r.worst) > 0 {
			fmt.Fprintf(w, "- **%s**\n", name)
			for _, x := range r.worst {
				fmt.Fprintf(w, "  - %s\n", x)
			}
		}
	}
	return nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
