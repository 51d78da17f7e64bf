// Package debug1 reads and writes the text of
// /debug/pprof/goroutine?debug=1 (stack.KindGoDebug1): one counted record
// per distinct stack, with its labels and frames (docs/profiles.md).
//
// [NewReader] reads it (a paste's frame set aside first), one record at a
// time, and refuses the text of another profile (heap, block, mutex,
// threadcreate) with stack.ErrNotGoroutineProfile. [NewEncoder] writes a
// dump in this form; [WriteGroups] writes dedupe's groups as records.
// [Form] says which lines are debug=1 text's, for the door (package
// formats) to tell the text forms apart.
package debug1
