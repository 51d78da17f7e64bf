// Package formats reads dumps of any format and writes them in any: the
// door to the format packages.
//
// [NewReader] takes any io.Reader, undoes gzip or zstd, sniffs the format
// from the first bytes (through a paste's frame, which it learns then) and
// hands the input to that format's reader (formats/gotext, formats/debug1,
// formats/pprof, formats/dumpjson, formats/jvm, formats/exectrace);
// [Reader.Next] and [Reader.Routines] yield its dumps and their routines
// one at a time, and [ReadAll] collects them in memory. A text input that
// goes on with a dump of another form (a debug=1 profile after a debug=2
// dump, a Go crash in a JVM's log) is read on by that form's reader. The
// text codecs each say which lines are their form's (gotext.Form,
// debug1.Form, jvm.Form); the door composes them. Readers are forgiving:
// junk around dumps is skipped, and a malformed routine is reported as a
// *stack.ParseError naming its line while reading goes on.
//
// [NewEncoder] returns the writer of an output format (formats/output
// names them): the text format writes each dump in its own form's text,
// so that the output reads back as the same dumps. [WriteGroups] writes
// package dedupe's groups; [Copy] streams every dump of a source through
// an encoder.
//
// The door imports every codec by name. A program that needs one format
// imports that codec's package instead and links nothing else: a Go
// service's endpoint (package dumper) links the Go codecs only, and
// leakcheck links the Go traceback reader and the model.
package formats
