package dumper

import (
	"context"
	"fmt"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats/output"
)

// FileOptions configure [WriteFile].
type FileOptions struct {
	// Format is the output format; empty means the one the path's
	// extension names (.json, .txt, .pb, .folded), else text.
	Format output.Format
	// Compression is the file's compression; empty means the one the
	// path's extension names (.gz, .zst), else none. It must agree with
	// the path (output.For): "x.txt" with gzip is an error.
	Compression output.Compression
	// Capture configures the capture (mode, limits).
	Capture CaptureOptions
	// By groups identical stacks at that similarity (text, json and debug1
	// only); the zero value, dedupe.ByNone, writes every goroutine.
	By dedupe.By
}

// WriteFile captures a goroutine dump and writes it to path atomically:
// into a temporary file in the same directory, synced, then renamed over
// path. On any error — a full disk, a failed write, a cancelled ctx — the
// temporary file is removed and an existing file at path is left as it was.
// An empty path is refused ([ErrEmptyPath]) before anything is captured.
// An existing path is written as [CreateAtomic] says: a replaced file keeps
// its mode, a symbolic link is followed and stays, a device, FIFO or socket
// is written in place.
func WriteFile(ctx context.Context, path string, opts FileOptions) error {
	if path == "" {
		// Refused before the capture: no pause for a file never written.
		return fmt.Errorf("write: %w", ErrEmptyPath)
	}
	format, comp, err := fileFormat(path, opts)
	if err != nil {
		return err
	}
	if opts.By != dedupe.ByNone && !output.CanGroup(format) {
		return fmt.Errorf("write %s: dedupe applies to text, json or debug1, not %s", path, format)
	}
	if err := checkBy(opts.By); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Create the file before the capture, so that an unwritable
	// destination costs the process no pause.
	af, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer af.Abort()
	d, raw, err := capture(ctx, opts.Capture, wantsRawText(format, opts.By))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if raw != nil {
		defer putStackBuf(raw.buf)
	}
	_, err = writeCapture(ctx, af, comp, format, d, raw, opts.By)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return af.Commit()
}

// fileFormat resolves the format and compression of a dump file.
func fileFormat(path string, opts FileOptions) (output.Format, output.Compression, error) {
	f, c, err := output.For(path, output.Options{Format: opts.Format, Compression: opts.Compression})
	if err != nil {
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return f, c, nil
}
