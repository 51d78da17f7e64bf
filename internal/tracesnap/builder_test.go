package tracesnap

import (
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// frameList is a StackSource of fixed stacks.
type frameList [][]Frame

func (l frameList) StackFrames(i int32) []Frame { return l[i] }

func TestBuilderHidesCreatedBy(t *testing.T) {
	src := frameList{
		{{Func: "main.helper", File: "main.go", Line: 10}},                                              // 0: the helper's start
		{{Func: "main.spawn", File: "main.go", Line: 5}, {Func: "main.main", File: "main.go", Line: 3}}, // 1: the go statement
		{{Func: "main.other", File: "main.go", Line: 20}},                                               // 2
		{{Func: "main.run", File: "main.go", Line: 7}, {Func: "main.main", File: "main.go", Line: 3}},   // 3: another creator
	}
	events := []Event{
		{Kind: KindSync},
		{Kind: KindTransition, G: 1, From: GoUndetermined, To: GoRunning},
		{Kind: KindTransition, G: 10, From: GoNotExist, To: GoRunnable, Stack: MakeStack(src, 0), EventStack: MakeStack(src, 1), EventG: 1},
		{Kind: KindTransition, G: 11, From: GoNotExist, To: GoRunnable, Stack: MakeStack(src, 2), EventStack: MakeStack(src, 3), EventG: 1},
		{Kind: KindSync},
	}
	for _, tc := range []struct {
		hide string
		want []int64
	}{
		{"", []int64{1, 10, 11}},
		{"main.spawn", []int64{1, 11}},
		{"main.main", []int64{1, 10, 11}}, // only the innermost frame of the creator counts
	} {
		b := NewBuilder(BuildOptions{Version: Version, HideCreatedBy: tc.hide})
		for i := range events {
			b.Add(&events[i])
		}
		n := b.Finish()
		var got []int64
		var r stack.Routine
		for i := range n {
			b.Routine(i, &r)
			got = append(got, r.ID)
		}
		if len(got) != len(tc.want) {
			t.Errorf("HideCreatedBy %q: goroutines %v, want %v", tc.hide, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("HideCreatedBy %q: goroutines %v, want %v", tc.hide, got, tc.want)
				break
			}
		}
	}
}

func TestBuilderRoutineStack(t *testing.T) {
	for _, name := range []string{"go126.trace", "go127-long.trace"} {
		data := readFixture(t, name)
		rd, err := NewReaderBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(BuildOptions{Version: Version})
		if err := b.ReadAll(rd); err != nil {
			t.Fatal(err)
		}
		n := b.Finish()
		stale := 0
		var r stack.Routine
		for i := range n {
			b.Routine(i, &r)
			st, s := b.RoutineStack(i)
			if st != r.Stack || s != r.Stale {
				t.Errorf("%s: goroutine %d: RoutineStack says %p stale %v, Routine %p stale %v", name, r.ID, st, s, r.Stack, r.Stale)
			}
			if s {
				stale++
			}
		}
		if n < 20 || stale == 0 {
			t.Errorf("%s: %d goroutines, %d stale: want a fixture with both kinds", name, n, stale)
		}
	}
}
