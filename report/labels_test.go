package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// Legend entries that share a top frame are told apart by the first
// frame that differs, however deep, with its line when only the line
// differs; labels that differ already stay short.
func TestSeriesLabelsTellApartSharedTopFrames(t *testing.T) {
	b := newDump(stack.KindGoTraceback, "")
	park := "runtime.gopark@/go/src/runtime/proc.go:462"
	shared := []string{park, "main.worker@/app/w.go:10", "main.loop@/app/w.go:20", "main.run@/app/w.go:30"}
	r := func(specs ...string) *stack.Routine {
		return &stack.Routine{Stack: b.stack(append(slices.Clone(shared), specs...)...)}
	}
	samples := []*stack.Routine{
		r("main.startA@/app/a.go:5"),
		r("main.startB@/app/b.go:7"),
		r("main.startB@/app/b.go:9"),
		{Stack: b.stack(park, "main.other@/app/o.go:1")},
	}
	got := seriesLabels(samples, keysOf(len(samples)))
	want := []string{
		"main.worker ← … ← main.startA",
		"main.worker ← … ← main.startB (b.go:7)",
		"main.worker ← … ← main.startB (b.go:9)",
		"main.other",
	}
	if !slices.Equal(got, want) {
		t.Errorf("labels\n got %q\nwant %q", got, want)
	}
	// Right below the top frame: no ellipsis.
	got = seriesLabels([]*stack.Routine{
		{Stack: b.stack(park, "main.worker@/app/w.go:10", "main.a@/app/a.go:1")},
		{Stack: b.stack(park, "main.worker@/app/w.go:10", "main.b@/app/b.go:1")},
	}, keysOf(2))
	if want := []string{"main.worker ← main.a", "main.worker ← main.b"}; !slices.Equal(got, want) {
		t.Errorf("labels\n got %q\nwant %q", got, want)
	}
}

func keysOf(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%016x", uint64(0xabc0000000000000)+uint64(i))
	}
	return keys
}

// Labels are always distinct: one function blocked at two lines is told
// apart by the line; stacks alike to their end (groups split by creator
// or by state) by the creator, then the state, then the key; frames of
// dumps read with different Tables compare by what they say.
func TestSeriesLabelsAlwaysDistinct(t *testing.T) {
	b := newDump(stack.KindGoTraceback, "")
	park := "runtime.gopark@/go/src/runtime/proc.go:462"
	other := newDump(stack.KindGoTraceback, "")
	got := seriesLabels([]*stack.Routine{
		{Stack: b.stack(park, "main.worker@/app/w.go:10", "main.run@/app/w.go:30")},
		{Stack: b.stack(park, "main.worker@/app/w.go:12", "main.run@/app/w.go:30")},
		{Stack: b.stack(park, "main.idle@/app/i.go:1"), CreatedBy: b.frame("main.startA@/app/a.go:5")},
		{Stack: b.stack(park, "main.idle@/app/i.go:1"), CreatedBy: b.frame("main.startB@/app/b.go:5")},
		{Stack: b.stack(park, "main.same@/app/s.go:1"), State: "chan receive"},
		{Stack: b.stack(park, "main.same@/app/s.go:1"), State: "select"},
		{Stack: b.stack(park, "main.twin@/app/t.go:1", "main.common@/app/c.go:1", "main.a@/app/a.go:1")},
		{Stack: other.stack(park, "main.twin@/app/t.go:1", "main.common@/app/c.go:1", "main.b@/app/b.go:1")},
		{Stack: b.stack(park, "main.clone@/app/c.go:1")},
		{Stack: b.stack(park, "main.clone@/app/c.go:1")},
	}, keysOf(10))
	want := []string{
		"main.worker (w.go:10)",
		"main.worker (w.go:12)",
		"main.idle (created by main.startA)",
		"main.idle (created by main.startB)",
		"main.same [chan receive]",
		"main.same [select]",
		"main.twin ← … ← main.a",
		"main.twin ← … ← main.b",
		"main.clone #abc0000000000008",
		"main.clone #abc0000000000009",
	}
	// The last two keys differ past their first 8 digits only.
	if !slices.Equal(got, want) {
		t.Errorf("labels\n got %q\nwant %q (the last two distinct)", got, want)
	}
}
