package judged

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The verdict kinds scored, in the order of the table.
var kinds = []string{"proven-leak", "likely-leak", "leak-suspect", "growth", "blocked", "contention", "deadlock", "stuck"}

// truth is what a case is, written down from how it was made.
type truth struct {
	Name string `json:"name"`
	// Made says how the case was made: the program or server and what it
	// was made to do.
	Made string `json:"made"`
	// Expect are the verdicts the case must get: each one is a kind and
	// a text its subject must contain (a function or thread name).
	Expect []want `json:"expect"`
	// Allow are verdicts that are true of the case but not required
	// (a weaker kind of one expected): they count neither way.
	Allow []want `json:"allow"`
	// Files, for a case read from files rather than captured, are its
	// snapshots in order, from the repository root.
	Files []string `json:"files,omitempty"`
}

type want struct {
	Kind  string `json:"kind"`
	Where string `json:"where"`
	Why   string `json:"why,omitempty"`
}

// verdict is a verdict stackdump gave: its kind, the text of its subject
// (functions, thread names, locks) and how it reads for people.
type verdict struct {
	Kind  string
	Where string
	Text  string
}

func (w want) matches(v verdict) bool {
	return w.Kind == v.Kind && strings.Contains(v.Where, w.Where)
}

func loadTruth(t testing.TB, name string) truth {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "judged", name+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if tr.Name != name || tr.Made == "" {
		t.Fatalf("%s: name %q, made %q", path, tr.Name, tr.Made)
	}
	for _, w := range append(slices.Clone(tr.Expect), tr.Allow...) {
		if !slices.Contains(kinds, w.Kind) || w.Where == "" {
			t.Fatalf("%s: %+v: unknown kind or empty where", path, w)
		}
	}
	return tr
}

// tally counts one kind's verdicts against the truth.
type tally struct{ tp, fp, fn int }

func (t tally) precision() (float64, bool) {
	if t.tp+t.fp == 0 {
		return 0, false
	}
	return float64(t.tp) / float64(t.tp+t.fp), true
}

func (t tally) recall() (float64, bool) {
	if t.tp+t.fn == 0 {
		return 0, false
	}
	return float64(t.tp) / float64(t.tp+t.fn), true
}

// judgement is one case's verdicts scored against its truth.
type judgement struct {
	name   string
	tally  map[string]*tally
	misses []string // expected verdicts not given
	wrong  []string // verdicts given that the truth neither expects nor allows
}

// judge scores the verdicts given for one case: each expected verdict
// matched by at least one given is a true positive of its kind, each one
// matched by none a false negative; each given verdict that matches no
// expected or allowed one is a false positive of its kind.
func judge(tr truth, given []verdict) judgement {
	j := judgement{name: tr.Name, tally: map[string]*tally{}}
	for _, k := range kinds {
		j.tally[k] = &tally{}
	}
	for _, w := range tr.Expect {
		if slices.ContainsFunc(given, w.matches) {
			j.tally[w.Kind].tp++
		} else {
			j.tally[w.Kind].fn++
			j.misses = append(j.misses, fmt.Sprintf("%s %s", w.Kind, w.Where))
		}
	}
	for _, v := range given {
		if !slices.Contains(kinds, v.Kind) {
			continue
		}
		ok := slices.ContainsFunc(tr.Expect, func(w want) bool { return w.matches(v) }) ||
			slices.ContainsFunc(tr.Allow, func(w want) bool { return w.matches(v) })
		if !ok {
			j.tally[v.Kind].fp++
			j.wrong = append(j.wrong, v.Kind+": "+v.Text)
		}
	}
	return j
}

// scoreTable sums the judgements per kind and renders the table.
func scoreTable(js []judgement) (map[string]*tally, string) {
	sum := map[string]*tally{}
	for _, k := range kinds {
		sum[k] = &tally{}
	}
	for _, j := range js {
		for k, t := range j.tally {
			sum[k].tp += t.tp
			sum[k].fp += t.fp
			sum[k].fn += t.fn
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-13s %4s %4s %4s  %9s  %6s\n", "kind", "TP", "FP", "FN", "precision", "recall")
	for _, k := range kinds {
		t := sum[k]
		fmt.Fprintf(&b, "%-13s %4d %4d %4d  %9s  %6s\n", k, t.tp, t.fp, t.fn, ratio(t.precision()), ratio(t.recall()))
	}
	all := tally{}
	for _, t := range sum {
		all.tp += t.tp
		all.fp += t.fp
		all.fn += t.fn
	}
	fmt.Fprintf(&b, "%-13s %4d %4d %4d  %9s  %6s\n", "all", all.tp, all.fp, all.fn, ratio(all.precision()), ratio(all.recall()))
	return sum, b.String()
}

func ratio(r float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

// The scoring itself can fail: a verdict of the wrong kind, or about
// another place, is no true positive, and a verdict the truth does not
// allow is a false positive.
func TestJudgeScores(t *testing.T) {
	tr := truth{Name: "x", Expect: []want{{Kind: "deadlock", Where: "main.transfer"}, {Kind: "stuck", Where: "main.transfer"}},
		Allow: []want{{Kind: "contention", Where: "main.transfer"}}}
	j := judge(tr, []verdict{
		{Kind: "deadlock", Where: "main.transfer main.transfer", Text: "cycle"},
		{Kind: "stuck", Where: "main.other", Text: "other"},
		{Kind: "contention", Where: "main.transfer", Text: "allowed"},
		{Kind: "blocked", Where: "main.transfer", Text: "not allowed"},
	})
	if d := j.tally["deadlock"]; *d != (tally{tp: 1}) {
		t.Errorf("deadlock %+v", *d)
	}
	if s := j.tally["stuck"]; *s != (tally{fp: 1, fn: 1}) {
		t.Errorf("stuck %+v", *s)
	}
	if c, b := j.tally["contention"], j.tally["blocked"]; *c != (tally{}) || *b != (tally{fp: 1}) {
		t.Errorf("contention %+v, blocked %+v", *c, *b)
	}
	sum, table := scoreTable([]judgement{j})
	if p, _ := sum["stuck"].precision(); p != 0 || !strings.Contains(table, "deadlock         1    0    0       1.00    1.00") {
		t.Errorf("table:\n%s", table)
	}
}
