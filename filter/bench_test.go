package filter_test

import (
	"context"
	"os"
	"testing"

	"github.com/stackdump/stackdump/filter"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// BenchmarkSource reads the demo service's dump (315 goroutines) from
// memory without a filter, and through frame and state expressions: the
// filter's cost beside the reading it sits on.
func BenchmarkSource(b *testing.B) {
	text, err := os.ReadFile(testdata("go", "demo_go126.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name          string
		focus, ignore []string
	}{
		{"none", nil, nil},
		{"frame", []string{`net/http\.\(\*conn\)\.serve`}, nil},
		{"frame+state+ignore", []string{`internal/demo`, "state:chan"}, []string{`zoo\.go:36`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var f *filter.Filter
			if bc.focus != nil || bc.ignore != nil {
				if f, err = filter.New(bc.focus, bc.ignore); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				var src stack.DumpSource = formats.NewReaderBytes(text, formats.ReadOptions{ReuseRoutines: true})
				if f != nil {
					src = f.Source(src)
				}
				p := stack.Pipeline{Source: src, Encoder: stack.RoutineFunc(func(*stack.Routine) {})}
				if _, err := p.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
