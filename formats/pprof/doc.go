// Package pprof reads and writes goroutine profiles in pprof's protobuf form
// (stack.KindGoPprof, /debug/pprof/goroutine?debug=0), with goroutine
// states and wait-time buckets as sample labels (docs/profiles.md).
package pprof
