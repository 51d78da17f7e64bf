// Package gen generates large, realistic goroutine dumps for benchmarks.
//
// A dump looks like what runtime.Stack(buf, true) — or
// /debug/pprof/goroutine?debug=2 — prints for a busy Go 1.26 service: HTTP
// servers with idle keep-alive connections in IO wait, handlers stuck on a
// database pool or a contended mutex, worker pools on chan receive, gRPC
// transports, generic batchers, timers, syscalls, goroutines locked to
// their thread, deep recursions. Every line has the exact shape the runtime
// prints (studied from real Go 1.26 output), arguments carry pointer values
// that differ per goroutine as they do in real dumps, and the output is a
// pure function of [Options]: the same seed gives the same bytes.
//
// Two presets matter for side-by-side benchmarks. [Compatible] avoids the
// line forms that older parsers drop (Go 1.22 `gp= m= mp=` headers, Go 1.26
// `labels:{…}`, Go 1.21 `...N frames elided...`), so every parser sees all N
// goroutines. [Modern] sprinkles a small, configurable share of them in.
package gen
