package dumper

import (
	"context"
	"fmt"

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
	// Labels: printed in the goroutine headers (labels.go), else taken
	// from a goroutine profile collected while the traceback is parsed
	// (it runs concurrently with the program; parked goroutines have not
	// moved).
	var st stackText
	wantLabels := false
	if opts.NoLabels {
		st = printAllStacks(maxBytes)
	} else {
		wantLabels = !withTracebackLabels(func() { st = printAllStacks(maxBytes) })
	}
	defer putStackBuf(st.buf)

	var prof *labelIndex
	var profErr error
	profDone := make(chan struct{})
	if wantLabels {
		go func() {
			defer close(profDone)
			prof, profErr = profileLabels()
		}()
	} else {
		close(profDone)
	}
	d, err := parseTraceback(ctx, st.buf[:st.n], t)
	<-profDone
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
