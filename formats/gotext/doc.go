// Package gotext reads and writes Go traceback text (stack.KindGoTraceback):
// the output of runtime.Stack, /debug/pprof/goroutine?debug=2, panics,
// fatal errors, SIGQUIT dumps and race reports, in every form Go 1.20 to
// 1.27 prints (docs/go-formats.md).
//
// Reading: [NewReader] reads text a person may have pasted (its paste
// frame — Markdown fences, quotes, log prefixes, a reversed order… — is
// set aside first, docs/paste-forms.md); [NewRuntimeReader] reads what
// the runtime wrote and links none of that. Either [Reader] holds one
// routine at a time, skips the junk around dumps, reports a malformed
// routine as a *stack.ParseError naming its line and reads on;
// [Reader.Reset] reads the next input keeping the stacks it met. Inside,
// a lexer says what each line is by its form, an assembler builds the
// dump from those lines (its preamble, routines, race reports, a crash's
// thread blocks), and an accelerator takes the frames of call sites met
// before straight out of the input's buffer.
//
// Writing: [NewEncoder] writes dumps back in the form the runtime prints;
// [WriteGroups] writes grouped dumps as readable text. [CrashOf] and
// [CrashWatch] read what crashed from a dump's preamble and routines.
// [Form] says which lines are Go traceback text's, for the door (package
// formats) to tell the text forms apart.
//
// It links the standard library and this module's model and internals only.
package gotext
