package dumper

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// checkBy validates a similarity level: dedupe.ByNone or one of
// dedupe.Levels.
func checkBy(by dedupe.By) error {
	if by == dedupe.ByNone || slices.Contains(dedupe.Levels(), by) {
		return nil
	}
	return fmt.Errorf("unknown similarity %v", by)
}

// writeGrouped groups d's routines at similarity by and writes the groups
// in format f.
func writeGrouped(ctx context.Context, w io.Writer, f output.Format, d *stack.Dump, by dedupe.By) error {
	g := dedupe.NewGrouper(dedupe.Options{By: by})
	for i, r := range d.Routines {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		g.Add(r)
	}
	return writeGroups(w, f, d, g.Groups())
}
