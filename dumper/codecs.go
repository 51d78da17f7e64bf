package dumper

import (
	"fmt"
	"io"

	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/folded"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/internal/jsonenc"
	"github.com/stackdump/stackdump/internal/words"
	"github.com/stackdump/stackdump/stack"
)

// The dumper serves the Go formats only, each through its own codec, so
// that a service linking it links no other (no JVM or JSON reading):
// newEncoder and writeGroups are the formats.NewEncoder and
// formats.WriteGroups of a Go process's own dumps.

// newEncoder returns the encoder of format f for a dump of kind k. Text
// is the dump's own form, as formats.NewEncoder writes it: Go traceback
// text, or debug=1 text for a grouped capture (debug=0 read back).
func newEncoder(w io.Writer, f output.Format, k stack.Kind) (stack.Encoder, error) {
	switch f {
	case output.Text:
		if k == stack.KindGoPprof || k == stack.KindGoDebug1 {
			return debug1.NewEncoder(w), nil
		}
		return gotext.NewEncoder(w), nil
	case output.JSON:
		return jsonenc.NewEncoder(w), nil
	case output.Debug1:
		return debug1.NewEncoder(w), nil
	case output.Pprof:
		return pprof.NewEncoder(w), nil
	case output.Folded:
		return folded.NewEncoder(w), nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", f, words.Or(output.Formats()))
}

// writeGroups writes groups in format f, as formats.WriteGroups does.
func writeGroups(w io.Writer, f output.Format, d *stack.Dump, groups []*stack.Group) error {
	switch f {
	case output.Text:
		return gotext.WriteGroups(w, d, groups)
	case output.JSON:
		return jsonenc.WriteGroups(w, d, groups)
	case output.Debug1:
		return debug1.WriteGroups(w, d, groups)
	}
	return fmt.Errorf("grouped output cannot be written as %q (want %s, %s or %s)", f, output.Text, output.JSON, output.Debug1)
}
