package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

// ReadOptions configure Read.
type ReadOptions struct {
	// Format configures the reader (format, shared Table, limits).
	Format formats.ReadOptions
	// Group configures grouping.
	Group dedupe.Options
	// OnWarning, when not nil, sees each parse error as it is met; they
	// are also kept as the dumps' Warnings.
	OnWarning func(*formats.ParseError)
}

// ErrNoDump is returned by Read for an input that holds no dump.
var ErrNoDump = errors.New("no dump found")

// Read reads every dump of r and groups each one as its routines stream
// by, without keeping them: one Input per dump, in input order. The inputs
// are named name, or "name #N" when r holds several dumps. On an error
// that stops reading, the dumps read until then are returned with it.
func Read(r io.Reader, name string, opts ReadOptions) ([]Input, error) {
	rd := formats.NewReader(r, opts.Format)
	var inputs []Input
	for {
		d, groups, err := dedupe.GroupNext(rd, opts.Group, opts.OnWarning)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nameInputs(inputs, name), fmt.Errorf("%s: %w", name, err)
		}
		inputs = append(inputs, Input{Dump: d, Groups: groups})
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoDump)
	}
	return nameInputs(inputs, name), nil
}

func nameInputs(inputs []Input, name string) []Input {
	for i := range inputs {
		inputs[i].Name = name
		if len(inputs) > 1 {
			inputs[i].Name = fmt.Sprintf("%s #%d", name, i+1)
		}
	}
	return inputs
}
