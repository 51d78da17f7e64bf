package dumper

import (
	"bytes"
	"context"
	"errors"
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
// capture kept it (raw) and f is text, the raw text streamed through the
// reader into format f otherwise, else d's groups in format f when dedupe
// is set (at similarity by), else d in format f.
func writeCaptured(ctx context.Context, w io.Writer, f formats.Format, d *formats.Dump, raw *stackText, dedupe bool, by string) error {
	switch {
	case raw != nil && f == formats.FormatText:
		if _, err := w.Write(raw.buf[:raw.n]); err != nil {
			return fmt.Errorf("write text: %w", err)
		}
		return ctx.Err()
	case raw != nil:
		return streamCaptured(ctx, w, f, d, raw)
	case dedupe:
		return writeGrouped(ctx, w, f, d, by)
	}
	return encodeDump(ctx, w, f, d)
}

// wantsRawText reports whether output in format f can be written from the
// runtime's traceback text as it is read, one routine at a time, rather
// than from a dump read whole first: text (the runtime's own bytes) and
// JSON. Streaming reads on one CPU without building the dump in memory,
// leaving the others to the compressor.
func wantsRawText(f formats.Format, dedupe bool) bool {
	return (f == formats.FormatText || f == formats.FormatJSON) && !dedupe
}

// streamCaptured reads raw's traceback text in the reader's streaming mode
// and writes each routine in format f as it is read. d carries the
// capture's metadata (source, cost, truncation), which the read dump takes.
func streamCaptured(ctx context.Context, w io.Writer, f formats.Format, d *formats.Dump, raw *stackText) error {
	enc, err := formats.NewEncoder(w, f)
	if err != nil {
		return err
	}
	rd := formats.NewReader(bytes.NewReader(raw.buf[:raw.n]), formats.ReadOptions{Kind: formats.KindGoTraceback, ReuseRoutines: true})
	read, err := rd.Next()
	if err == io.EOF { // no goroutine at all: write the metadata alone
		read, err = &formats.Dump{}, nil
	}
	if err != nil {
		return fmt.Errorf("read stacks: %w", err)
	}
	read.Source = d.Source
	if err := enc.BeginDump(read); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	i := 0
	for r, err := range rd.Routines() {
		if i++; i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err != nil {
			var pe *formats.ParseError
			if errors.As(err, &pe) {
				continue // kept in read.Warnings
			}
			return fmt.Errorf("read stacks: %w", err)
		}
		if err := enc.WriteRoutine(r); err != nil {
			return fmt.Errorf("write %s: %w", f, err)
		}
	}
	read.Truncated = read.Truncated || d.Truncated
	read.Warnings = append(read.Warnings, d.Warnings...)
	if err := enc.EndDump(read); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	return ctx.Err()
}
