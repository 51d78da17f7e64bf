package dumper

import (
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// encodeDump writes d to w in format f, checking ctx between routines so
// that a cancelled request or file write stops promptly.
func encodeDump(ctx context.Context, w io.Writer, f output.Format, d *stack.Dump) error {
	enc, err := newEncoder(w, f, d.Source.Kind)
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

// writeCapture writes a capture to w compressed with c: as JSON made in
// parallel from the runtime's traceback text when the capture kept it
// (raw) and f is JSON, else through one large buffered output (see
// writeCaptured). It returns how many bytes went to w: after an error,
// what was still buffered or being compressed is dropped, so when
// encoding fails before the first buffer reached w nothing was sent.
func writeCapture(ctx context.Context, w io.Writer, c output.Compression, f output.Format, d *stack.Dump, raw *stackText, by dedupe.By) (sent int64, err error) {
	gw := &gateWriter{w: w}
	if raw != nil && raw.trace == nil && f == output.JSON {
		err = writeJSONParallel(ctx, gw, c, d, raw)
		return gw.sent(), err
	}
	out, err := newDumpOutput(gw, c)
	if err != nil {
		return 0, err
	}
	err = writeCaptured(ctx, out, f, d, raw, by)
	if err != nil {
		gw.close()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return gw.sent(), err
}

// writeCaptured writes a capture to w: the runtime's text as is when the
// capture kept it (raw) and f is text, else d's groups in format f when
// by is not dedupe.ByNone (grouped at similarity by), else d in format f.
func writeCaptured(ctx context.Context, w io.Writer, f output.Format, d *stack.Dump, raw *stackText, by dedupe.By) error {
	switch {
	case raw != nil && raw.trace != nil:
		return raw.trace.encode(ctx, w, f, d)
	case raw != nil && f == output.Text:
		if _, err := w.Write(raw.buf[:raw.n]); err != nil {
			return fmt.Errorf("write text: %w", err)
		}
		return ctx.Err()
	case raw != nil:
		return fmt.Errorf("write %s: no encoder for the raw traceback", f) // wantsRawText and writeCapture disagree
	case by != dedupe.ByNone:
		return writeGrouped(ctx, w, f, d, by)
	}
	return encodeDump(ctx, w, f, d)
}

// wantsRawText reports whether output in format f can be written from the
// runtime's traceback text as it is read rather than from a dump read whole
// first: text (the runtime's own bytes) and JSON (writeJSONParallel), when
// by is dedupe.ByNone (nothing grouped).
func wantsRawText(f output.Format, by dedupe.By) bool {
	return (f == output.Text || f == output.JSON) && by == dedupe.ByNone
}

// gateWriter passes writes to w until closed, then drops them, and counts
// what it passed. Only the goroutine writing the dump uses it: the
// compressors hand their blocks back to it rather than writing themselves.
type gateWriter struct {
	w      io.Writer
	n      int64
	closed bool
}

func (g *gateWriter) Write(p []byte) (int, error) {
	if g.closed {
		return len(p), nil
	}
	n, err := g.w.Write(p)
	g.n += int64(n)
	return n, err
}

func (g *gateWriter) close() { g.closed = true }

func (g *gateWriter) sent() int64 { return g.n }
