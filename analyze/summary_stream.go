package analyze

import (
	"errors"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
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
	OnWarning func(*formats.ParseError)
}

// SummarizeNext reads the next dump of rd, grouping and analysing its
// routines as they stream by, and returns its summary and groups. Memory
// follows the dump's distinct stacks, not its routines. It returns io.EOF
// when rd holds no more dumps, and the error that stopped reading
// otherwise (with the summary of what was read when there is one).
func SummarizeNext(rd *formats.Reader, opts StreamOptions) (*Summary, []*formats.Group, error) {
	d, err := rd.Next()
	if err != nil {
		return nil, nil, err
	}
	grouper := dedupe.NewGrouper(opts.Group)
	a := NewAnalyzer(opts.Options)
	var readErr error
	for r, err := range rd.Routines() {
		if err != nil {
			var pe *formats.ParseError
			if errors.As(err, &pe) {
				if opts.OnWarning != nil {
					opts.OnWarning(pe)
				}
				continue
			}
			readErr = err
			break
		}
		if r == nil {
			continue
		}
		grouper.Add(r)
		a.Add(r)
	}
	groups := grouper.Groups()
	if d.Total == 0 {
		d.Total = grouper.Total()
	}
	return a.Summary(d, groups, opts.Name), groups, readErr
}
