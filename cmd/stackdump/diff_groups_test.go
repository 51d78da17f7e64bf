package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generated is a dump testdata/gen/groups wrote (see testdata/gen/README.md).
func generated(name string) string {
	return filepath.Join("..", "..", "testdata", "groups", name)
}

// diffChange is one entry of `stackdump diff --format json`.
type diffChange struct {
	Change string
	Old    int64
	New    int64
	Top    struct{ Func string }
}

func diffJSON(t *testing.T, args ...string) (changes []diffChange) {
	t.Helper()
	out, _, err := runCLI(t, append([]string{"diff", "--format", "json"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Changes []diffChange }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc.Changes
}

// changesAt lists the changes whose top frame is fn.
func changesAt(changes []diffChange, fn string) []diffChange {
	var out []diffChange
	for _, c := range changes {
		if c.Top.Func == fn {
			out = append(out, c)
		}
	}
	return out
}

// Between the generator's two debug=2 dumps, the 3 goroutines in
// main.waitArg(4) were replaced by 3 in main.waitArg(5): at exact one
// group is gone and one new; at stack the 12 waiters are one unchanged
// group.
func TestDiffCommandByExactComparesArguments(t *testing.T) {
	before, after := generated("debug2_go126.txt"), generated("debug2_after_go126.txt")
	got := changesAt(diffJSON(t, "--by", "exact", before, after), "main.waitArg")
	slices.SortFunc(got, func(a, b diffChange) int { return strings.Compare(a.Change, b.Change) })
	want := []diffChange{{Change: "gone", Old: 3}, {Change: "new", New: 3}}
	for i := range want {
		want[i].Top.Func = "main.waitArg"
	}
	if !slices.Equal(got, want) {
		t.Errorf("--by exact: waitArg changes %+v; want %+v", got, want)
	}
	for _, by := range []string{"stack", "func"} {
		if got := changesAt(diffJSON(t, "--by", by, before, after), "main.waitArg"); len(got) != 0 {
			t.Errorf("--by %s: waitArg changes %+v; want none", by, got)
		}
	}
}

// The generator's debug=1 and debug=0 profiles are of one process; pprof
// names its generic functions main.process[go.shape.int], debug=1
// main.process[...]. Diffing them finds no change at stack or func.
func TestDiffCommandGenericsAcrossFormats(t *testing.T) {
	for _, by := range []string{"stack", "func"} {
		changes := diffJSON(t, "--by", by, generated("debug1_go126.txt"), generated("debug0_go126.pb.gz"))
		if len(changes) != 0 {
			t.Errorf("--by %s: debug=1 → debug=0 of one process: changes %+v; want none", by, changes)
		}
	}
}
