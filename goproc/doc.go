// Package goproc reads the goroutines of a Go process or core from its
// memory, as the runtime's own debug=2 traceback would print them — a
// jstack for Go, which needs no endpoint and sends no signal.
//
// [OpenBinary] reads the executable: its symbol and line table (pclntab,
// inline tree included), its build information, where the runtime keeps
// its goroutine list, and the runtime's struct layouts for its Go release
// (1.19 to 1.27, linux/amd64 and linux/arm64), stripped or not. [Read]
// then reads the goroutines from a [Memory]: the list, each goroutine's
// record, its stack from its saved registers (or, for a goroutine running
// on a thread, from the thread's registers), its labels, and makes a
// stack.Dump of them with the runtime's states, wait reasons, wait minutes,
// frames (inlined ones too), arguments, creators and locked-to-thread
// marks.
//
// With a [Stopper], Read stops the target only while it reads the list,
// the records and the running goroutines' stacks, then resumes it and
// reads the parked goroutines' stacks, re-checking each record: one
// instant, stalled for the least it can be. Without one, nothing is
// stopped: each goroutine is read consistent in itself (its record read
// before and after its stack, retried when it moved), and the dump says
// so. [ProcessMemory] reads a live process (process_vm_readv).
//
// What is read, and what it costs the target: docs/pid.md.
package goproc
