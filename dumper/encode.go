package dumper

import (
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/formats"
)

// encodeDump writes d to w in format f, checking ctx between routines so
// that a cancelled request or file write stops promptly.
func encodeDump(ctx context.Context, w io.Writer, f formats.Format, d *formats.Dump) error {
	enc, err := formats.NewEncoder(w, f)
	if err != nil {
		return err
	}
	if err := enc.BeginDump(d); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	for i, r := range d.Routines {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := enc.WriteRoutine(r); err != nil {
			return fmt.Errorf("write %s: %w", f, err)
		}
	}
	if err := enc.EndDump(d); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	return ctx.Err()
}

// writeCaptured writes a capture to w: the runtime's text as is when the
// capture kept it (raw, for text output), else d's groups in format f when
// dedupe is set (at similarity by), else d in format f.
func writeCaptured(ctx context.Context, w io.Writer, f formats.Format, d *formats.Dump, raw *stackText, dedupe bool, by string) error {
	switch {
	case raw != nil:
		if _, err := w.Write(raw.buf[:raw.n]); err != nil {
			return fmt.Errorf("write text: %w", err)
		}
		return ctx.Err()
	case dedupe:
		return writeGrouped(ctx, w, f, d, by)
	}
	return encodeDump(ctx, w, f, d)
}

// wantsRawText reports whether output in format f can be the runtime's
// own traceback text.
func wantsRawText(f formats.Format, dedupe bool) bool {
	return f == formats.FormatText && !dedupe
}
