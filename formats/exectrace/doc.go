// Package exectrace reads a runtime/trace execution trace (stack.KindGoTrace)
// as one dump: every goroutine the trace knows at its end, with the stack
// and state of its last event. A trace of any length does, from
// `go test -trace`, runtime/trace.Start, or the millisecond window of
// /debug/pprof/trace?seconds=0.001 that trace mode takes (Go 1.23+: the
// tracer then walks every goroutine at its end).
//
//	rd := exectrace.NewReader(f, exectrace.ReadOptions{})
//	d, err := rd.Next()
//	if err != nil {
//		return err
//	}
//	stale := 0
//	for r, err := range rd.Routines() {
//		if err == nil && r.Stale {
//			stale++ // it ran during the trace: its stack may be out of date
//		}
//	}
//	fmt.Println(stale, d.Source.Capture.Missing) // Missing: what a trace cannot tell
//
// A trace carries no wait minutes, arguments or `locked to thread`, and
// its wait reasons are inferred from the stacks: Routine.Inferred says
// which fields were, Routine.Stale marks a stack that may be out of date,
// and the dump's Source.Capture.Missing lists what the trace lacks
// (docs/go-formats.md). Traces of Go 1.26 and 1.27 are decoded by
// stackdump's own decoder; older ones by golang.org/x/exp/trace. The
// Reader streams the events but keeps the state of every goroutine until
// the end of the trace. Package formats reads this form among all others,
// sniffed.
package exectrace
