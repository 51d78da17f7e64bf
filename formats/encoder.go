package formats

import (
	"context"
	"fmt"
	"io"

	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/folded"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// NewEncoder returns an Encoder of format f writing to w.
func NewEncoder(w io.Writer, f output.Format) (stack.Encoder, error) {
	switch f {
	case output.Text:
		return newTextDispatch(w), nil
	case output.JSON:
		return dumpjson.NewEncoder(w), nil
	case output.Debug1:
		return debug1.NewEncoder(w), nil
	case output.Pprof:
		return pprof.NewEncoder(w), nil
	case output.Folded:
		return folded.NewEncoder(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", f, words.Or(output.Formats()))
}

// Copy streams every dump of src through enc and returns how many dumps
// it wrote: a [stack.Pipeline] run without a context. Parse errors become
// warnings of their dump; onWarning, when not nil, sees each as it is
// found. Errors of enc are returned as enc returned them.
//
// When src is a *Reader that has not started reading, Copy turns on
// ReadOptions.ReuseRoutines: each routine goes to enc at once and is
// never seen again, so the reader need not allocate one per routine.
func Copy(enc stack.Encoder, src stack.DumpSource, onWarning func(*stack.ParseError)) (int, error) {
	if rd, ok := src.(*Reader); ok {
		rd.reuseRoutines()
	}
	p := stack.Pipeline{Source: src, Encoder: enc, OnWarning: onWarning}
	return p.Run(context.Background())
}
