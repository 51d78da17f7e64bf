package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestCreatorsOfService(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	var got []string
	for _, c := range s.Creators {
		got = append(got, fmt.Sprintf("%d %s by %d → %s", c.Count, c.Frame, c.Parents, childList(c.Children, 80)))
	}
	want := []string{
		"120 app.fetch (fetch.go:48) by 120 → → 120 app.fetch.func1",
		"64 app.(*Pool).Start (pool.go:22) by 1 → → 64 app.(*Pool).worker",
		"30 net/http.(*Server).Serve (server.go:3285) by 1 → → 30 app.(*Cache).Get",
		"5 main.main (main.go:35) by 1 → → 5 app.batch",
		"4 app.spawn (orphan.go:3) by 1 → → 4 app.orphan",
	}
	if !slices.Equal(got, want) {
		t.Errorf("creators\n got %q\nwant %q", got, want)
	}
}

func TestParentsOfService(t *testing.T) {
	s := summarize(serviceDump(t), Options{})
	var got []string
	for _, p := range s.Parents {
		row := fmt.Sprintf("%d:%d %s %s", p.ID, p.Children, p.Status, p.State)
		if p.Frame != nil {
			row += " " + p.Frame.Func
		}
		got = append(got, row)
	}
	want := []string{
		"1:73 alive select main.main",
		"2:30 alive IO wait net/http.(*Server).Serve",
		"9999:4 exited ",
		"5000:1 exited ",
		"5001:1 exited ",
	}
	if !slices.Equal(got, want) || s.ParentsUncounted != 0 {
		t.Errorf("parents (%d uncounted)\n got %q\nwant %q", s.ParentsUncounted, got, want)
	}
	if c := s.Parents[0].CreatedBy; c.Func != "app.(*Pool).Start" {
		t.Errorf("parent 1's creator %v; want app.(*Pool).Start, which started 64 of its 73 children", c)
	}
}

// Past MaxParents, children of new parents are counted apart; parents
// already counted go on counting.
func TestParentsCap(t *testing.T) {
	d := dumpOf(t, stack.KindGoTraceback, g{n: 10, id: 100, state: "sleep", frames: []string{"a.f /a.go:1"}, creator: "a.g /a.go:2", parent: 1},
		g{n: 6, id: 200, state: "sleep", frames: []string{"a.f /a.go:1"}, creator: "a.g /a.go:2", parent: 50, parents: 6},
		g{n: 5, id: 300, state: "sleep", frames: []string{"a.f /a.go:1"}, creator: "a.g /a.go:2", parent: 1},
	)
	s := summarize(d, Options{MaxParents: 3})
	if s.ParentsUncounted != 4 || len(s.Parents) != 3 || s.Parents[0].ID != 1 || s.Parents[0].Children != 15 {
		t.Errorf("parents %+v, uncounted %d; want 1:15, 50:1, 51:1 and 4 uncounted", s.Parents, s.ParentsUncounted)
	}
	if s.Creators[0].Count != 21 {
		t.Errorf("creator count %d; want all 21", s.Creators[0].Count)
	}
}

// Before Go 1.21 `created by` had no parent id: creators are counted,
// parents are not.
func TestCreatorsWithoutParentIDs(t *testing.T) {
	d := dumpOf(t, stack.KindGoTraceback, g{n: 3, id: 5, state: "chan receive", frames: []string{gopark, chanrecv1, "a.w /a.go:1"}, creator: "a.start /a.go:9"},
		g{n: 2, id: 9, state: "IO wait", frames: []string{"a.io /a.go:4"}, creator: "a.start /a.go:9"},
	)
	s := summarize(d, Options{})
	if len(s.Parents) != 0 || len(s.Creators) != 1 || s.Creators[0].Parents != 0 || s.Creators[0].Count != 5 || len(s.Creators[0].Children) != 2 {
		t.Errorf("creators %+v, parents %+v", s.Creators, s.Parents)
	}
}

// A panic printed with the default GOTRACEBACK shows only the goroutine
// that panicked (elided_go126.txt: goroutine 8, started by goroutine 1):
// the parent is not in the dump because the dump has no other goroutine,
// not because it exited.
func TestSingleGoroutineCrashParentUnknown(t *testing.T) {
	d := readDumps(t, "../testdata/go/elided_go126.txt")[0]
	if len(d.Routines) != 1 || d.Routines[0].ParentID != 1 {
		t.Fatalf("%d goroutines, parent %d", len(d.Routines), d.Routines[0].ParentID)
	}
	s := Summarize(d, nil, Options{})
	if s.Crash == nil || len(s.Parents) != 1 || s.Parents[0].ID != 1 || s.Parents[0].Status != "unknown" {
		t.Errorf("crash %v, parents %+v; want goroutine 1 unknown", s.Crash != nil, s.Parents)
	}
	var b strings.Builder
	WriteText(&b, s, TextOptions{})
	if strings.Contains(b.String(), "exited") {
		t.Errorf("text calls the parent exited:\n%s", b.String())
	}
}
