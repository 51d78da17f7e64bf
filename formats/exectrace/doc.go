// Package exectrace reads a runtime/trace execution trace as one dump: every
// goroutine the trace knows at its end, with the stack and state of its
// last event (stack.KindGoTrace; docs/go-formats.md says what is
// inferred).
package exectrace
