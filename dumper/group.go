package dumper

import (
	"context"
	"io"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
)

// checkBy validates a dedupe similarity name.
func checkBy(s string) error {
	_, err := dedupe.ParseBy(s)
	return err
}

// writeGrouped groups d's routines at similarity by (a dedupe.ParseBy
// name, "" for the default) and writes the groups in format f.
func writeGrouped(ctx context.Context, w io.Writer, f formats.Format, d *formats.Dump, by string) error {
	level, err := dedupe.ParseBy(by)
	if err != nil {
		return err
	}
	g := dedupe.NewGrouper(dedupe.Options{By: level})
	for i, r := range d.Routines {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		g.Add(r)
	}
	return formats.WriteGroups(w, f, d, g.Groups())
}
