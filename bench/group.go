package bench

import (
	"io"
	"strconv"
	"strings"

	"github.com/DataDog/gostackparse"
	"github.com/maruel/panicparse/v2/stack"
)

// Grouping reads a whole dump and groups goroutines with the same stack.
type Grouping struct {
	Name  string
	Group func(io.Reader) (GroupResult, error)
}

// GroupResult is how many goroutines were read and how many groups made.
type GroupResult struct {
	Goroutines, Groups int
}

// Groupings are the contestants, stackdump first.
var Groupings = []Grouping{
	{"stackdump", GroupStackdump},
	{"gostackparse+map", GroupGostackparse},
	{"panicparse-AnyValue", func(r io.Reader) (GroupResult, error) { return GroupPanicparse(r, stack.AnyValue) }},
	{"panicparse-AnyPointer", func(r io.Reader) (GroupResult, error) { return GroupPanicparse(r, stack.AnyPointer) }},
}

// GroupGostackparse parses with gostackparse and counts goroutines in a
// map keyed by every frame's function and file:line, the grouping a user
// of gostackparse writes.
func GroupGostackparse(r io.Reader) (GroupResult, error) {
	gs, _ := gostackparse.Parse(r)
	groups := make(map[string]int)
	var key strings.Builder
	for _, g := range gs {
		key.Reset()
		for _, f := range g.Stack {
			key.WriteString(f.Func)
			key.WriteByte(' ')
			key.WriteString(f.File)
			key.WriteByte(':')
			key.WriteString(strconv.Itoa(f.Line))
			key.WriteByte('\n')
		}
		groups[key.String()]++
	}
	return GroupResult{Goroutines: len(gs), Groups: len(groups)}, nil
}

// GroupPanicparse parses with panicparse and aggregates its snapshot at
// the given similarity.
func GroupPanicparse(r io.Reader, similar stack.Similarity) (GroupResult, error) {
	snap, err := ScanPanicparse(r)
	if err != nil {
		return GroupResult{}, err
	}
	agg := snap.Aggregate(similar)
	return GroupResult{Goroutines: len(snap.Goroutines), Groups: len(agg.Buckets)}, nil
}
