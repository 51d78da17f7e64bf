package dedupe

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// dumpOf builds a dump with counts[i] goroutines on path i, in state
// states[i], with ids from firstID on.
func dumpOf(g *gen, paths []codePath, counts []int, firstID int64) *stack.Dump {
	d := &stack.Dump{}
	id := firstID
	for i, n := range counts {
		for range n {
			r := g.routine(paths[i], id)
			r.State = genStates[i%len(genStates)]
			d.Routines = append(d.Routines, r)
			d.Total++
			id++
		}
	}
	return d
}

// diffFixture is an old and a new dump over paths 0..4:
//
//	path    0     1  2  3  4
//	old    10     5  3  4  0
//	new  1010     2  0  4  7
func diffFixture() (old, new []*stack.Group, paths []codePath) {
	g := newGen(11)
	paths = genPaths(5, 0)
	old = Group(dumpOf(g, paths, []int{10, 5, 3, 4, 0}, 1), Options{})
	new = Group(dumpOf(g, paths, []int{1010, 2, 0, 4, 7}, 100), Options{})
	return old, new, paths
}

func TestDiff(t *testing.T) {
	old, new, _ := diffFixture()
	res := Diff(old, new)

	type row struct {
		path          int
		change        Change
		old, new, dlt int64
		pct           float64
	}
	var got []row
	for _, e := range res.Entries {
		got = append(got, row{handlerOf(t, e.Group), e.Change, e.Old, e.New, e.Delta, e.Percent})
		if e.Change != ChangeGone && e.Group.Count != e.New || e.Change == ChangeGone && e.Group.Count != e.Old {
			t.Errorf("path %d: entry's group is not from the right side", handlerOf(t, e.Group))
		}
	}
	want := []row{
		{0, ChangeGrown, 10, 1010, 1000, 10000},
		{4, ChangeNew, 0, 7, 7, 0},
		{1, ChangeShrunk, 5, 2, -3, -60},
		{2, ChangeGone, 3, 0, -3, -100},
	}
	// Paths 1 and 2 tie on |delta|: the key decides.
	if res.Entries[2].Key > res.Entries[3].Key {
		t.Errorf("tied entries not ordered by key: %s before %s", res.Entries[2].Key, res.Entries[3].Key)
	}
	slices.SortStableFunc(got[2:], func(a, b row) int { return a.path - b.path })
	if !slices.Equal(got, want) {
		t.Errorf("entries\n%v\nwant\n%v", got, want)
	}
	if res.Unchanged != 1 || res.OldTotal != 22 || res.NewTotal != 1023 || res.Delta() != 1001 {
		t.Errorf("unchanged %d, totals %d → %d (delta %d); want 1, 22 → 1023 (1001)", res.Unchanged, res.OldTotal, res.NewTotal, res.Delta())
	}
	if p := res.Percent(); p < 4549.9 || p > 4550.1 {
		t.Errorf("total percent %.2f, want 4550", p)
	}
	if res.OldGroups != 4 || res.NewGroups != 4 {
		t.Errorf("groups %d → %d, want 4 → 4", res.OldGroups, res.NewGroups)
	}
	for c, n := range map[Change]int{ChangeNew: 1, ChangeGone: 1, ChangeGrown: 1, ChangeShrunk: 1} {
		if res.Count(c) != n {
			t.Errorf("Count(%s) = %d, want %d", c, res.Count(c), n)
		}
	}
	var grew []int
	for _, e := range res.GrownBy(7) {
		grew = append(grew, handlerOf(t, e.Group))
	}
	if !slices.Equal(grew, []int{0, 4}) {
		t.Errorf("GrownBy(7) = paths %v, want [0 4]", grew)
	}
	if n := len(res.GrownBy(1001)); n != 0 {
		t.Errorf("GrownBy(1001) = %d entries, want none", n)
	}
}

func TestDiffOfIdenticalDumps(t *testing.T) {
	old, _, _ := diffFixture()
	res := Diff(old, old)
	if len(res.Entries) != 0 || res.Unchanged != len(old) || res.Delta() != 0 {
		t.Errorf("diff of a dump with itself: %d entries, %d unchanged of %d", len(res.Entries), res.Unchanged, len(old))
	}
	if res := Diff(nil, nil); len(res.Entries) != 0 || res.Percent() != 0 {
		t.Errorf("diff of nothing: %+v", res)
	}
}

func TestDiffSumsRepeatedKeys(t *testing.T) {
	old, new, _ := diffFixture()
	// Two dumps' groups on the new side: every key twice.
	res := Diff(old, append(slices.Clone(new), new...))
	if res.NewTotal != 2*1023 {
		t.Errorf("new total %d, want %d", res.NewTotal, 2*1023)
	}
	for _, e := range res.Entries {
		if e.Change == ChangeNew && e.New != 14 {
			t.Errorf("new group counted %d, want 7+7", e.New)
		}
	}
}

func TestWriteDiffGolden(t *testing.T) {
	old, new, _ := diffFixture()
	rep := DiffReport{
		Result: Diff(old, new),
		By:     ByStack,
		Old:    DumpInfo{Name: "before.txt", Kind: stack.KindGoTraceback},
		New:    DumpInfo{Name: "after.txt", Kind: stack.KindGoDebug1},
	}
	for _, c := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"diff.golden.txt", func(b *bytes.Buffer) error { return WriteDiffText(b, rep) }},
		{"diff.golden.json", func(b *bytes.Buffer) error { return WriteDiffJSON(b, rep) }},
	} {
		var buf bytes.Buffer
		if err := c.write(&buf); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", c.file)
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs (go test -update rewrites it):\n%s", c.file, buf.Bytes())
		}
	}
}

func TestWriteDiffTextTable(t *testing.T) {
	old, new, _ := diffFixture()
	var buf bytes.Buffer
	if err := WriteDiffText(&buf, DiffReport{Result: Diff(old, new)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	header := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "CHANGE") })
	if header < 0 || len(lines)-header != 5 {
		t.Fatalf("want a header and 4 rows:\n%s", buf.String())
	}
	col := strings.Index(lines[header], "WHERE")
	for _, l := range lines[header+1:] {
		if !strings.HasPrefix(l[col:], "example.com/app/pool.(*Pool).wait") {
			t.Errorf("row not aligned under WHERE (column %d): %q", col, l)
		}
	}
	if !strings.Contains(lines[header+1], "+10000.0%") || !strings.Contains(lines[header+1], "wait0 (pool.go:40)") {
		t.Errorf("first row should be the grown group of path 0: %q", lines[header+1])
	}
}

func TestWriteDiffJSONFields(t *testing.T) {
	old, new, _ := diffFixture()
	var buf bytes.Buffer
	err := WriteDiffJSON(&buf, DiffReport{Result: Diff(old, new), By: ByFunc, Old: DumpInfo{Name: "a"}, New: DumpInfo{Name: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema  string         `json:"schema"`
		By      string         `json:"by"`
		Delta   int64          `json:"delta"`
		Percent float64        `json:"percent"`
		Counts  map[string]int `json:"counts"`
		Changes []struct {
			Change  string   `json:"change"`
			Key     string   `json:"key"`
			Delta   int64    `json:"delta"`
			Percent *float64 `json:"percent"`
			Top     struct {
				Func string `json:"func"`
				Line int    `json:"line"`
			} `json:"top"`
			Stack []struct{ Func string } `json:"stack"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if doc.Schema != DiffSchema || doc.By != "func" || doc.Delta != 1001 || doc.Percent != 4550 {
		t.Errorf("header %q %q delta %d percent %v", doc.Schema, doc.By, doc.Delta, doc.Percent)
	}
	if doc.Counts["unchanged"] != 1 || doc.Counts["new"] != 1 || len(doc.Changes) != 4 {
		t.Errorf("counts %v, %d changes", doc.Counts, len(doc.Changes))
	}
	first := doc.Changes[0]
	if first.Change != "grown" || first.Delta != 1000 || first.Percent == nil || *first.Percent != 10000 ||
		first.Top.Func != "example.com/app/pool.(*Pool).wait0" || first.Top.Line != 40 || len(first.Stack) != 6 {
		t.Errorf("first change %+v", first)
	}
	if doc.Changes[1].Change != "new" || doc.Changes[1].Percent != nil {
		t.Errorf("a new group has no percent: %+v", doc.Changes[1])
	}
}
