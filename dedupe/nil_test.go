package dedupe

import (
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// A library caller's nil dump, nil routine or nil reader gets no groups
// or an error, never a panic.
func TestNilInputs(t *testing.T) {
	if gs := Group(nil, Options{}); len(gs) != 0 {
		t.Errorf("Group(nil) = %d groups, want none", len(gs))
	}
	g := NewGrouper(Options{})
	g.Add(nil)
	if g.Len() != 0 || g.Total() != 0 {
		t.Errorf("after Add(nil): %d groups, total %d; want 0, 0", g.Len(), g.Total())
	}
	d, gs, err := GroupNext(nil, Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "nil stack.DumpSource") || d != nil || gs != nil {
		t.Errorf("GroupNext(nil) = %v, %v, %v; want an error naming the nil reader", d, gs, err)
	}
	// The nil routine among real ones is skipped, the rest counted.
	dumps, err := formats.ReadAll(strings.NewReader(string(readGo(t, "demo_go126.txt"))), formats.ReadOptions{})
	if err != nil || len(dumps) == 0 {
		t.Fatalf("reading the fixture: %v", err)
	}
	want := Group(dumps[0], Options{})
	dumps[0].Routines = append(dumps[0].Routines, nil)
	if got := Group(dumps[0], Options{}); len(got) != len(want) || got[0].Count != want[0].Count {
		t.Errorf("with a nil routine: %d groups, want %d", len(got), len(want))
	}
}
