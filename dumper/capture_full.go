package dumper

import (
	"context"
	"fmt"

	"github.com/stackdump/stackdump/stack"
)

// ctxCheckEvery is how many routines are parsed between context checks.
const ctxCheckEvery = 4096

// takeStacks prints every goroutine in one runtime.Stack pass, with pprof
// labels in the headers unless opts.NoLabels or the process's GODEBUG says
// tracebacklabels=0 (labels.go). headerLabels reports whether they are
// there. The caller returns st.buf with putStackBuf.
func takeStacks(opts CaptureOptions) (st stackText, headerLabels bool) {
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if opts.NoLabels {
		return printAllStacks(maxBytes), tracebackPrintsLabels()
	}
	headerLabels = withTracebackLabels(func() { st = printAllStacks(maxBytes) })
	return st, headerLabels
}

// readStacks reads the text of takeStacks into a dump. Without header
// labels (and unless opts.NoLabels), labels are joined from a goroutine
// profile collected while the text is parsed: it runs concurrently with
// the program, and parked goroutines have not moved.
func readStacks(ctx context.Context, t *stack.Table, st stackText, headerLabels bool, opts CaptureOptions) (*stack.Dump, error) {
	var prof *labelIndex
	var profErr error
	profDone := make(chan struct{})
	if !headerLabels && !opts.NoLabels {
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
	for _, r := range d.Routines {
		r.Line = 0 // a line of text no one has: the traceback is not kept
	}
	if st.truncated {
		d.Truncated = true
		d.Warnings = append(d.Warnings, truncationWarning(st))
	}
	switch {
	case profErr != nil:
		d.Warnings = append(d.Warnings, &stack.ParseError{Msg: "pprof labels unavailable: " + profErr.Error(), Err: profErr})
	case prof != nil:
		if w := prof.apply(d, t); w != nil {
			d.Warnings = append(d.Warnings, w)
		}
	}
	d.Source.Capture = &stack.Capture{Missing: missingByMode[ModeFull]}
	return d, nil
}

func truncationWarning(st stackText) *stack.ParseError {
	return &stack.ParseError{
		Offset: int64(st.n),
		Msg:    fmt.Sprintf("capture cut at %d bytes (CaptureOptions.MaxBytes); later goroutines are missing", st.n),
	}
}
