package formats

import (
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/internal/words"
)

// NewEncoder returns an Encoder of format f writing to w.
func NewEncoder(w io.Writer, f Format) (Encoder, error) {
	switch f {
	case FormatText:
		return newTextDispatch(w), nil
	case FormatJSON:
		return newJSONEncoder(w), nil
	case FormatDebug1:
		return newDebug1Encoder(w), nil
	case FormatPprof:
		return newPprofEncoder(w), nil
	case FormatFolded:
		return newFoldedEncoder(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", f, words.Or(Formats()))
}

// Copy streams every dump of src through enc and returns how many dumps
// it wrote: a [Pipeline] run without a context. Parse errors become
// warnings of their dump; onWarning, when not nil, sees each as it is
// found. Errors of enc are returned as enc returned them.
//
// When src is a *Reader that has not started reading, Copy turns on
// ReadOptions.ReuseRoutines: each routine goes to enc at once and is
// never seen again, so the reader need not allocate one per routine.
func Copy(enc Encoder, src DumpSource, onWarning func(*ParseError)) (int, error) {
	if rd, ok := src.(*Reader); ok {
		rd.reuseRoutines()
	}
	p := Pipeline{Source: src, Encoder: enc, OnWarning: onWarning}
	return p.Run(context.Background())
}
