package dumper

import "errors"

// ErrTracerBusy is returned by a trace-mode capture when the process's
// execution tracer already has a writer (runtime/trace.Start, a running
// /debug/pprof/trace request, go test -trace): the tracer takes one at a
// time. A running FlightRecorder does not count; it shares the tracer.
var ErrTracerBusy = errors.New("execution tracer already in use by another trace (runtime/trace.Start, /debug/pprof/trace or go test -trace); retry later or use mode=full")

// ErrNoLeakProfile is returned by a leak-mode capture in a process whose
// runtime has no goroutine leak profile; remote.ErrNoLeakProfile is this
// error, for a target that has none.
var ErrNoLeakProfile = errors.New("no goroutineleak profile: leak mode needs Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile)")
