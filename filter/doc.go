// Package filter keeps or drops goroutines and threads by what they run,
// their state, their pprof labels, their names and who created them: the
// --focus and --ignore flags of stackdump's commands, modelled on pprof's
// -focus, -ignore and -tagfocus.
//
// An expression is a regular expression (Go syntax, unanchored, case
// sensitive; (?i) ignores case) with an optional prefix saying what it
// matches:
//
//	REGEXP              a frame: its function, or its file and line ("server.go:12")
//	frame:REGEXP        the same (for a REGEXP that starts with a prefix below)
//	state:REGEXP        the state as the dump prints it ("chan receive", "IO wait",
//	                    "WAITING (parking)")
//	label:KEY=REGEXP    a pprof label KEY whose value matches
//	label:KEY           a pprof label KEY, whatever its value
//	name:REGEXP         a thread's name (JVM threads; goroutines have none)
//	created:REGEXP      the function of the go statement that created it
//
// A routine is kept when it matches every focus expression and no ignore
// expression: more focus expressions narrow, more ignore expressions drop
// more. A [Filter] is a stage of a stack.Pipeline on its source side:
// [Filter.Source] wraps any stack.DumpSource (a formats.Reader, a
// remote.Document) and yields the kept routines, each dump's Total
// counting only them, with the warnings of every routine read.
package filter
