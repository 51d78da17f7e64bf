package dumper

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/formats"
)

// ctxCheckEvery is how many routines are parsed between context checks.
const ctxCheckEvery = 4096

// captureFull takes every goroutine from one runtime.Stack pass, then
// parses the text and joins pprof labels to it.
func captureFull(ctx context.Context, t *formats.Table, opts CaptureOptions) (*formats.Dump, error) {
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	// Labels: printed in the goroutine headers when the runtime is asked
	// to (GODEBUG=tracebacklabels=1), else taken from a goroutine profile
	// just before the traceback, so both see nearly the same goroutines.
	var prof *labelIndex
	var profErr error
	if !opts.NoLabels && !tracebackPrintsLabels() {
		prof, profErr = profileLabels()
	}

	st := allStacks(maxBytes)
	defer putStackBuf(st.buf)
	d, err := parseTraceback(ctx, st.buf[:st.n], t)
	if err != nil {
		return nil, err
	}
	recordStackBytes(st.n, len(d.Routines))
	if st.truncated {
		d.Truncated = true
		d.Warnings = append(d.Warnings, &formats.ParseError{
			Offset: int64(st.n),
			Msg:    fmt.Sprintf("capture cut at %d bytes (CaptureOptions.MaxBytes); later goroutines are missing", st.n),
		})
	}
	switch {
	case profErr != nil:
		d.Warnings = append(d.Warnings, &formats.ParseError{Msg: "pprof labels unavailable: " + profErr.Error()})
	case prof != nil:
		if w := prof.apply(d, t); w != nil {
			d.Warnings = append(d.Warnings, w)
		}
	}
	d.Source.Capture = &formats.Capture{Missing: missingByMode[ModeFull]}
	return d, nil
}

// parseTraceback reads runtime.Stack text into a dump with its routines.
func parseTraceback(ctx context.Context, text []byte, t *formats.Table) (*formats.Dump, error) {
	rd := formats.NewReader(bytes.NewReader(text), formats.ReadOptions{Kind: formats.KindGoTraceback, Table: t})
	d, err := rd.Next()
	if err == io.EOF {
		return &formats.Dump{Source: formats.Source{Kind: formats.KindGoTraceback}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("parse traceback: %w", err)
	}
	i := 0
	for r, err := range rd.Routines() {
		if err != nil {
			if _, ok := err.(*formats.ParseError); ok {
				continue // recorded in d.Warnings
			}
			return nil, fmt.Errorf("parse traceback: %w", err)
		}
		if r == nil {
			continue
		}
		d.Routines = append(d.Routines, r)
		if i++; i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	d.Source.Kind = formats.KindGoTraceback
	return d, nil
}
