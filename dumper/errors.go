package dumper

import "errors"

// The package's errors, for errors.Is.
var (
	// ErrTracerBusy is returned by a trace-mode capture when the process's
	// execution tracer already has a writer (runtime/trace.Start, a running
	// /debug/pprof/trace request, go test -trace): the tracer takes one at a
	// time. A running FlightRecorder does not count; it shares the tracer.
	ErrTracerBusy = errors.New("execution tracer already in use by another trace (runtime/trace.Start, /debug/pprof/trace or go test -trace); retry later or use mode=full")
	// ErrNoLeakProfile is returned by a leak-mode capture in a process whose
	// runtime has no goroutine leak profile (capture_leak.go).
	ErrNoLeakProfile = errors.New("no goroutineleak profile: leak mode needs Go 1.27 or newer (Go 1.26 only with GOEXPERIMENT=goroutineleakprofile)")
)
