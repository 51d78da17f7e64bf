package report

import (
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
	got := seriesLabels(samples)
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
	})
	if want := []string{"main.worker ← main.a", "main.worker ← main.b"}; !slices.Equal(got, want) {
		t.Errorf("labels\n got %q\nwant %q", got, want)
	}
}
