package analyze

import (
	"context"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// StreamOptions configure [SummarizeNext].
type StreamOptions struct {
	Options
	// Group sets how routines are grouped (package dedupe).
	Group dedupe.Options
	// Name is the file the dumps are read from, for Summary.Source.Name.
	Name string
	// OnWarning, when not nil, sees each parse warning as it is read; the
	// warnings are in the summary either way.
	OnWarning func(*stack.ParseError)
}

// SummarizeNext reads the next dump of rd (a formats.Reader, or a stage
// in front of one such as package filter's Source), grouping and analysing its
// routines as they stream by, and returns its summary and groups. Memory
// follows the dump's distinct stacks, not its routines. It returns io.EOF
// when rd holds no more dumps, and the error that stopped reading
// otherwise (with the summary of what was read when there is one).
func SummarizeNext(rd stack.DumpSource, opts StreamOptions) (*Summary, []*stack.Group, error) {
	a := NewAnalyzer(opts.Options)
	g := dedupe.GroupThrough(stack.RoutineFunc(a.Add), opts.Group)
	p := stack.Pipeline{Source: rd, Encoder: g, OnWarning: opts.OnWarning}
	d, err := p.Next(context.Background())
	if d == nil {
		return nil, nil, err
	}
	groups := g.Groups()
	if d.Total == 0 {
		d.Total = g.Total()
	}
	return a.Summary(d, groups, opts.Name), groups, err
}
