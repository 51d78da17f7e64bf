package formats

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// TestTextWriterRacesAndSystemStack writes real dumps with race reports
// (then a panic) and a system stack as text, and reads them back as the
// same model: races stay races, the system stack stays off the goroutines.
func TestTextWriterRacesAndSystemStack(t *testing.T) {
	for _, name := range []string{"race_go126.txt", "race_go127.txt", "racepanic_go127.txt", "overflow_go126.txt", "overflow_go127.txt"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/go/" + name)
			if err != nil {
				t.Fatal(err)
			}
			orig := readGoText(t, data)
			text := encodeAs(t, output.Text, orig...)
			back := readGoText(t, text)
			if len(back) != len(orig) {
				t.Fatalf("%d dumps read back, want %d:\n%s", len(back), len(orig), text)
			}
			races, sys := 0, 0
			for i := range orig {
				races += len(orig[i].Races)
				if orig[i].SystemStack != nil {
					sys++
				}
				o, b := *orig[i], *back[i]
				b.Source.Kind = o.Source.Kind
				if got, want := dumptest.Describe(&b, dumptest.DescribeOptions{}), dumptest.Describe(&o, dumptest.DescribeOptions{}); got != want {
					t.Errorf("dump %d differs read back:\n%s\nwant\n%s\ntext:\n%s", i, got, want, text)
				}
			}
			if races == 0 && sys == 0 {
				t.Error("fixture has neither races nor a system stack")
			}
			// And through JSON.
			fromJSON := readJSON(t, encodeAs(t, output.JSON, orig...), ReadOptions{})
			for i := range orig {
				o, b := *orig[i], *fromJSON[i]
				b.Source.Kind = o.Source.Kind
				if got, want := dumptest.Describe(&b, dumptest.DescribeOptions{Lines: true}), dumptest.Describe(&o, dumptest.DescribeOptions{Lines: true}); got != want {
					t.Errorf("dump %d differs through JSON:\n%s", i, dumptest.DiffText(want, got))
				}
			}
		})
	}
}

// TestTextWriterDebug1Dump writes a dump read from debug=1 text back as
// debug=1 text, which reads back with the same counts.
func TestTextWriterDebug1Dump(t *testing.T) {
	tab := stack.NewTable()
	f := dumptest.Frame(tab, "main.f", "/x.go", 3, 0x10)
	g := dumptest.Frame(tab, "main.g", "/x.go", 9, 0x22)
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoDebug1}, Total: 7, Routines: []*stack.Routine{
		{Count: 5, Stack: tab.Stack([]*stack.Frame{f}, stack.Elision{})},
		{Count: 2, Stack: tab.Stack([]*stack.Frame{g, f}, stack.Elision{}), Labels: tab.Labels(stack.Labels{{Key: "k", Value: "v"}})},
	}}
	out := writeText(t, d)
	if !strings.HasPrefix(out, "goroutine profile: total 7\n") {
		t.Fatalf("not debug=1 text:\n%s", out)
	}
	dumps, err := ReadAll(strings.NewReader(out), ReadOptions{})
	if err != nil || len(dumps) != 1 || dumps[0].Source.Kind != stack.KindGoDebug1 {
		t.Fatalf("read back: %v, %v", dumps, err)
	}
	var got []string
	for _, r := range dumps[0].Routines {
		got = append(got, fmt.Sprintf("%d %d %v", r.Count, len(r.Frames()), r.Labels))
	}
	if want := "[5 1 [] 2 2 [{k v}]]"; fmt.Sprint(got) != want {
		t.Errorf("records %v, want %s", got, want)
	}
}

// TestJSONLegacyRaceRoutines reads a document written before races were
// dump records (formats/testdata/legacy_race_routines.json is
// testdata/json/go_race.json as the writer made it then, with each block
// of a report a goroutine with a "race" object) as the same races the
// text it came from reads as, with no goroutines.
func TestJSONLegacyRaceRoutines(t *testing.T) {
	old, err := os.ReadFile("testdata/legacy_race_routines.json")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("../testdata/go/race_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, want := readJSON(t, old, ReadOptions{}), readGoText(t, text)
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("%d and %d dumps", len(got), len(want))
	}
	got[0].Source.Kind = want[0].Source.Kind
	if g, w := dumptest.Describe(got[0], dumptest.DescribeOptions{Lines: true}), dumptest.Describe(want[0], dumptest.DescribeOptions{Lines: true}); g != w {
		t.Errorf("legacy document reads differently:\n%s", dumptest.DiffText(w, g))
	}
}
