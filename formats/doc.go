// Package formats holds stackdump's one dump model and every reader and
// writer of it.
//
// # Model
//
// A [Dump] is metadata plus a sequence of [Routine] values: goroutines, or
// JVM threads. Call stacks are interned in a [Table], as google/pprof's
// profile package interns functions and locations: a [Stack] is a list of
// shared [Frame] pointers, and what differs between goroutines at the same
// call site (arguments, fp/sp/pc) lives in per-routine [FrameValues]. A
// million goroutines parked at sixty call sites cost sixty stacks.
//
// # Reading
//
// [NewReader] takes any io.Reader, undoes gzip or zstd, sniffs the format
// ([sniffKind]) and yields dumps with [Reader.Next] and their routines one at
// a time with [Reader.Routines]. Readers are forgiving: junk around dumps is
// skipped, and a malformed routine is reported as a [*ParseError] naming its
// line while reading goes on. [ReadAll] collects everything in memory.
//
// # Writing
//
// [NewEncoder] returns an [Encoder] for a [Format]; [NewOutput] wraps the
// destination in one large bufio.Writer and optional compression.
//
// # Streaming
//
// A [Pipeline] streams a [DumpSource] (a Reader) into an Encoder, one
// routine at a time: it is the one loop that reads dumps and hands their
// routines on, with parse errors to one OnWarning callback and a context
// to stop it. Anything else that must see every routine is an Encoder
// stage in front of the writer, as package dedupe's grouping stage is.
// [Copy] is a Pipeline from a Reader without a context.
package formats
