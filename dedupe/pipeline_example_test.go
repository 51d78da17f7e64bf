package dedupe_test

import (
	"context"
	"fmt"
	"os"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// Grouping as a stage of a stack.Pipeline: the routines of each dump
// of a real service's goroutine profile are grouped as they stream by.
func ExampleGroupThrough() {
	f, err := os.Open("../testdata/go/demo_go126.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	g := dedupe.GroupThrough(nil, dedupe.Options{By: dedupe.ByFunc})
	p := stack.Pipeline{
		Source:    formats.NewReader(f, formats.ReadOptions{ReuseRoutines: true}),
		Encoder:   g,
		OnWarning: func(pe *stack.ParseError) { fmt.Println("warning:", pe) },
	}
	d, err := p.Next(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	groups := g.Groups()
	fmt.Printf("%d goroutines in %d groups; the largest: %d in %s\n",
		d.Total, len(groups), groups[0].Count, dedupe.TopFrame(groups[0].Sample.Stack).Func)
	// Output:
	// 315 goroutines in 18 groups; the largest: 149 in github.com/stackdump/stackdump/internal/demo.(*Service).fetchQuote
}
