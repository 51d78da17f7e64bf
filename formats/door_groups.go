package formats

import (
	"fmt"
	"io"
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
// buffered (an [Output]); WriteGroups writes in large chunks and does not
// flush it.
func WriteGroups(w io.Writer, f Format, d *Dump, groups []*Group) error {
	switch f {
	case FormatText:
		return writeGroupsText(w, d, groups)
	case FormatJSON:
		return writeGroupsJSON(w, d, groups)
	case FormatDebug1:
		return writeGroupsDebug1(w, d, groups)
	}
	return fmt.Errorf("grouped output cannot be written as %q (want %s, %s or %s)", f, FormatText, FormatJSON, FormatDebug1)
}
