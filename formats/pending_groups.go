package formats

import "io"

// WriteGroups writes a grouped dump (groups built by package dedupe) in
// format f: grouped text, grouped JSON or debug=1 text.
func WriteGroups(w io.Writer, f Format, d *Dump, groups []*Group) error { return errPending }
