// Package gotext reads and writes Go traceback text (stack.KindGoTraceback): the
// output of runtime.Stack, /debug/pprof/goroutine?debug=2, panics, fatal
// errors, SIGQUIT dumps and race reports, in every form Go 1.20 to 1.27
// prints (docs/go-formats.md).
//
// [Reader] is one line state machine that holds one routine at a time and
// is forgiving of junk around dumps; [NewEncoder] writes dumps back in the
// form the runtime prints; [WriteGroups] writes grouped dumps as readable
// text. [CrashOf] and [CrashWatch] read what crashed from a dump's
// preamble and routines.
//
// The package imports the model and the standard library only.
package gotext
