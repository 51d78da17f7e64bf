package formats

import (
	"fmt"
	"io"

	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/dumpjson"
	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// WriteGroups writes a grouped dump (groups built by package dedupe, in
// the order given) in format f:
//
//   - FormatText: a readable summary, one block per group: a header with
//     the count, states, wait times, locking and creator, the member ids,
//     label sets, then the representative stack once.
//   - FormatJSON: a stackdump/v1 grouped document (docs/json.md), which
//     the JSON reader reads back.
//   - FormatDebug1: /debug/pprof/goroutine?debug=1 text, one record per
//     group.
//
// Other formats cannot hold groups and return an error. w should be
// buffered (an [output.Writer]); WriteGroups writes in large chunks and does not
// flush it.
func WriteGroups(w io.Writer, f output.Format, d *stack.Dump, groups []*stack.Group) error {
	switch f {
	case output.Text:
		return gotext.WriteGroups(w, d, groups)
	case output.JSON:
		return dumpjson.WriteGroups(w, d, groups)
	case output.Debug1:
		return debug1.WriteGroups(w, d, groups)
	}
	return fmt.Errorf("grouped output cannot be written as %q (want %s, %s or %s)", f, output.Text, output.JSON, output.Debug1)
}
