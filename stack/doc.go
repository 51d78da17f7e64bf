// Package stack is stackdump's one dump model, shared by every format's
// reader and writer, and the seam through which dumps stream.
//
// # Model
//
// A [Dump] is metadata plus a sequence of [Routine] values: goroutines, or
// JVM threads. Call stacks are interned in a [Table], as google/pprof's
// profile package interns functions and locations: a [Stack] is a list of
// shared [Frame] pointers, and what differs between goroutines at the same
// call site (arguments, fp/sp/pc) lives in per-routine [FrameValues]. A
// million goroutines parked at sixty call sites cost sixty stacks. Race
// reports ([Race]) and a throw's system stack ([SystemStack]) are kept
// beside a dump's routines, never as routines; JVM threads carry a
// [Thread] and their [Lock] lines. Package dedupe groups routines into
// [Group] values.
//
// Readers report a problem at a known place as a [*ParseError] and carry
// on; the sentinel errors ([ErrNotDump], [ErrTooLarge], ...) are matched
// with errors.Is.
//
// # Streaming
//
// A [DumpSource] yields dumps and their routines one at a time: every
// format's reader is one (package formats reads any format, its codec
// packages one each). An [Encoder] takes them one at a time: every writer
// is one, and so is anything that must see every routine (package dedupe's
// grouping stage, a [RoutineFunc]). A [Pipeline] streams a source into an
// encoder, with parse errors to one OnWarning callback and a context to
// stop it: it is stackdump's one read → encode loop.
//
// The package imports the standard library only.
package stack
