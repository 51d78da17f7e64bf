//go:build go1.26

package dumper

// runtimeGo126 reports whether this program was built with Go 1.26 or
// newer: its execution tracer writes the go 1.26 trace format, the one
// trace mode decodes (internal/tracesnap), and runtime.Stack prints pprof
// labels in goroutine headers under GODEBUG=tracebacklabels=1. Older
// runtimes (the module builds with Go 1.24) refuse trace mode with
// ErrTraceUnsupported and have full mode join labels from the goroutine
// profile (labels.go).
const runtimeGo126 = true
