package debug1_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Item 9 of issue 22: a debug=1 profile pasted without its `goroutine
// profile: total N` line (the paste starts at a record further down, tabs
// turned into spaces or not) is read as one: `N @ 0x…` then `#` frame
// lines is a debug=1 record and nothing else. Real profiles transformed
// by internal/paste.
func TestPasteProfileWithoutHeader(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "groups", "debug1_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	records := map[int64]int{}
	for _, r := range whole[0].Routines {
		records[r.Count]++
	}
	for _, name := range []string{"from-header", "from-header+reindent+inline-code", "cut-start"} {
		tr, _ := paste.Lookup(name)
		for _, also := range []string{"", "tabs-to-spaces"} {
			form := tr.Apply(data, 1)
			if also != "" {
				tabs, _ := paste.Lookup(also)
				form = tabs.Apply(form, 1)
			}
			got, err := formats.ReadAll(bytes.NewReader(form), formats.ReadOptions{})
			if err != nil || len(got) != 1 || got[0].Source.Kind != stack.KindGoDebug1 {
				t.Fatalf("%s %s: %d dumps, %v", name, also, len(got), err)
			}
			d := got[0]
			if len(d.Routines) == 0 || len(d.Warnings) == 0 || !strings.Contains(d.Warnings[len(d.Warnings)-1].Msg, "without its `goroutine profile: total N` line") {
				t.Errorf("%s %s: %d records, warnings %v", name, also, len(d.Routines), d.Warnings)
			}
			for _, r := range d.Routines {
				if records[r.Count] == 0 || len(r.Frames()) == 0 {
					t.Errorf("%s %s: a record of %d with %d frames is none of the profile's", name, also, r.Count, len(r.Frames()))
				}
			}
		}
	}
}
