// Package dedupe groups the routines of a dump into counted groups of
// similar stacks, and compares the groups of two dumps.
//
// A server with 40,000 goroutines usually runs a few dozen pieces of code:
// grouping turns the dump into one line per piece of code, largest first,
// with how many goroutines wait there, in which states, for how long, and
// which ids they have.
//
// # Grouping
//
// A [Grouper] takes routines one at a time, as a reader (formats.Reader,
// gotext.Reader) yields them, and keeps only per-group state: counts, a state histogram, the
// wait range, label sets with counts, at most [Options.MaxIDs] ids and one
// sample routine. Memory follows the number of groups, not of routines,
// and the key of a routine is computed once per distinct interned stack.
//
//	g := dedupe.NewGrouper(dedupe.Options{By: dedupe.ByStack})
//	for r, err := range rd.Routines() {
//		if err == nil {
//			g.Add(r)
//		}
//	}
//	for _, grp := range g.Groups() {
//		fmt.Println(grp.Count, dedupe.TopFrame(grp.Sample.Stack).Func)
//	}
//
// [Group] does the same for a dump in memory, and [GroupNext] for the next
// dump of a reader. In a [stack.Pipeline], grouping is a stage:
// [NewGroupingEncoder] hands each dump's groups to a writer
// (formats.WriteGroups), [GroupThrough] groups the routines on their way
// to another encoder. Groups come out largest first, then by key, and do not
// depend on the order the routines came in: ids are sorted (the smallest
// are kept past the cap) and the sample is the member with the lowest id.
// Grouped inputs (debug=1, pprof) count with their Routine.Count.
//
// # Similarity levels
//
// [By] says how alike two routines must be to share a group. Take three
// goroutines:
//
//	goroutine 7 [chan receive]:
//	main.worker(0xc000010000)
//		/src/app/worker.go:42 +0x1c
//	created by main.main in goroutine 1
//		/src/app/main.go:16 +0x2f
//
//	goroutine 8 [select]:
//	main.worker(0xc000010090)
//		/src/app/worker.go:42 +0x24
//	created by main.main in goroutine 1
//		/src/app/main.go:16 +0x2f
//
//	goroutine 9 [chan receive]:        (the next build: lines moved)
//	main.worker(0xc000010000)
//		/src/app/worker.go:45 +0x1c
//	created by main.main in goroutine 1
//		/src/app/main.go:16 +0x2f
//
// The levels group them so:
//
//   - [ByExact] compares states, every frame with its pc offset and
//     arguments, and the creator: three groups.
//   - [ByStack], the default, compares function, file and line of every
//     frame, and ignores arguments, offsets and states (counted per group
//     instead): 7 and 8 share a group, 9 does not.
//   - [ByFunc] compares function names only: one group of three, so that
//     dumps of two builds whose lines shifted still match.
//
// At ByStack and ByFunc runtime frames (runtime.*, internal/runtime/*,
// and the `panic` frame) are left out of the comparison: debug=1 and pprof
// hide the leading runtime.gopark frames and debug=2 hides the trailing
// runtime.goexit, so leaving them out makes a debug=2 dump, a debug=1 dump
// and a pprof profile of one process give the same groups. The creator is
// left out too, since debug=1 and pprof do not record it; set
// [Options.SplitByCreator] to tell apart routines started by different go
// statements in dumps that have creators.
//
// # Keys
//
// Group.Key is 16 hex digits of the SHA-256 of the group's canonical form
// at its level: function names, files and lines (and at ByExact states,
// offsets and arguments), never pointers, ids or input order. The same
// stack has the same key in every dump, format, process and run, which is
// what lets [Diff] match groups across dumps.
//
// # Diff
//
// [Diff] matches the groups of two dumps by key and reports the groups
// that are new, gone, grown or shrunk, with counts, deltas and
// percentages, largest change first. [WriteDiffText] prints an aligned
// table, [WriteDiffJSON] a document described in docs/dedupe.md.
package dedupe
