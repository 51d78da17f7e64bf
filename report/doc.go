// Package report writes a dump, or a series of dumps, as one self-contained
// HTML page: a summary, a chart of states, a flame graph (icicle) of the
// groups' stacks, the groups themselves with their stacks and creators, a
// filter box, and, for several dumps, a timeline of the largest groups.
//
// The page carries its data as one JSON document and renders it with a
// small script of its own: it opens from file:// and fetches nothing (its
// Content-Security-Policy forbids any network access and any script but
// its own two, by hash). Text from a dump is only ever set as text, never
// parsed as HTML, and the JSON is escaped so that no "<" of a dump reaches
// the HTML parser.
//
//	inputs, err := report.Read(f, "goroutines.txt", report.ReadOptions{})
//	if err != nil {
//		return err
//	}
//	return report.Write(w, inputs, report.Options{})
//
// [Write] takes dumps with their groups ([Input]); dumps without groups are
// grouped with package dedupe. [Read] reads every dump of a stream and
// groups it as it streams by, without keeping the routines.
//
// # Size
//
// The page grows with the number of groups and distinct frames, not with
// the number of goroutines: frames and strings are shared by every group
// and every dump. It carries at most [Options.MaxGroups] groups per dump
// (the smallest are counted, not listed), renders the group list a page at
// a time and builds a group's stack only when the group is opened, so a
// dump of 10,000 groups stays quick to open and to filter.
package report
