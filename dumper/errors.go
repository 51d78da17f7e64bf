package dumper

import "errors"

// ErrTracerBusy is returned by a trace-mode capture when the process's
// execution tracer already has a writer (runtime/trace.Start, a running
// /debug/pprof/trace request, go test -trace): the tracer takes one at a
// time. A running FlightRecorder does not count; it shares the tracer.
var ErrTracerBusy = errors.New("execution tracer already in use by another trace (runtime/trace.Start, /debug/pprof/trace or go test -trace); retry later or use mode=full")
