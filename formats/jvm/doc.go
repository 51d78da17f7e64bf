// Package jvm reads JVM thread dumps and writes them back as jstack text
// (docs/jvm.md).
//
// [NewReader] reads the text forms (stack.KindJVMText): jstack and jcmd
// Thread.print, with -l or -e, kill -3 output in a log, ThreadInfo and
// VisualVM dumps, Thread.dump_to_file's plain text, pasted or not (a
// paste's frame is set aside first); it holds one thread at a time.
// [NewJSONReader] reads Thread.dump_to_file -format=json
// (stack.KindJVMJSON), one document at a time. [NewEncoder] writes jstack
// text. [Form] says which lines are thread dump text's, for the door
// (package formats) to tell the text forms apart.
package jvm
