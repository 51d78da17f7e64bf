package dedupe

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestElideTypeArgs(t *testing.T) {
	for in, want := range map[string]string{
		"main.Process[go.shape.int]":                           "main.Process[...]",
		"main.Process[...]":                                    "main.Process[...]",
		"main.(*box[go.shape.int]).wait":                       "main.(*box[...]).wait",
		"main.(*Box[go.shape.string]).Get.func1":               "main.(*Box[...]).Get.func1",
		"main.Map[go.shape.[]int,go.shape.map[string]int]":     "main.Map[...]",
		"main.F[go.shape.struct { A int \"json:\\\"]\\\"\" }]": "main.F[...]",
		"main.Pair[go.shape.int,go.shape.string].Swap[...]":    "main.Pair[...].Swap[...]",
		"type:.eq.[2]interface {}":                             "type:.eq.[2]interface {}",
		"main.worker":                                          "main.worker",
		"main.cut[go.shape.int":                                "main.cut[go.shape.int",
		"[":                                                    "[",
		"":                                                     "",
	} {
		if got := elideTypeArgs(in); got != want {
			t.Errorf("elideTypeArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

// genericGroups returns the groups of a generated dump whose top frame is
// generic code, by key, with their counts.
func genericGroups(t *testing.T, name string, by By) map[string]int64 {
	t.Helper()
	_, groups := readGroups(t, readGenerated(t, name), Options{By: by})
	out := make(map[string]int64)
	for _, g := range groups {
		if top := TopFrame(g.Sample.Stack); top != nil && strings.Contains(top.Func, "[") {
			out[g.Key] = g.Count
		}
	}
	return out
}

// One process's debug=2, debug=1 and debug=0 dumps name its generic
// functions differently (main.process[...] in text, main.process[go.shape.int]
// in the proto); at stack and func their groups have the same keys and
// counts in all three, and no group is new or gone between debug=1 and
// debug=0.
func TestGenericFunctionsGroupAlikeAcrossFormats(t *testing.T) {
	for _, by := range []By{ByStack, ByFunc} {
		d1 := genericGroups(t, "debug1_go126.txt", by)
		// process[int], [string] and [*main.item] run through one line:
		// one group of 11; (*box[int]).wait another of 3.
		counts := slices.Sorted(maps.Values(d1))
		if !slices.Equal(counts, []int64{3, 11}) {
			t.Errorf("%s: debug=1 generic groups %v, want counts [3 11]", by, d1)
		}
		for _, name := range []string{"debug0_go126.pb.gz", "debug2_go126.txt"} {
			if got := genericGroups(t, name, by); !maps.Equal(got, d1) {
				t.Errorf("%s: %s generic groups %v; debug=1 has %v", by, name, got, d1)
			}
		}
		_, g1 := readGroups(t, readGenerated(t, "debug1_go126.txt"), Options{By: by})
		_, g0 := readGroups(t, readGenerated(t, "debug0_go126.pb.gz"), Options{By: by})
		res := Diff(g1, g0)
		for _, e := range res.Entries {
			t.Errorf("%s: debug=1 → debug=0: %s %d → %d at %s", by, e.Change, e.Old, e.New, TopFrame(e.Group.Sample.Stack).Func)
		}
	}
}

// At exact the names stay as the input wrote them.
func TestGenericFunctionsKeepTheirNamesAtExact(t *testing.T) {
	tab := stack.NewTable()
	key := func(fn string) string {
		st := tab.Stack([]*stack.Frame{tab.Frame(stack.Frame{Func: fn, File: "/src/main.go", Line: 9})}, stack.Elision{})
		return keyOf(&stack.Routine{Stack: st}, Options{By: ByExact})
	}
	if key("main.F[go.shape.int]") == key("main.F[...]") {
		t.Error("exact keys of main.F[go.shape.int] and main.F[...] are equal")
	}
}
