// Package bench measures stackdump against the other Go dump parsers,
// DataDog/gostackparse and maruel/panicparse/v2, on the same generated
// dumps (package gen): reading speed, allocations, peak heap while
// streaming, and reading plus grouping identical stacks.
//
// It is its own module so that the peers never enter stackdump's go.mod.
// Run the benchmarks with `go test -run '^$' -bench . -benchmem` here, or
// `make bench` in the repository root for the ratio table
// (cmd/benchtable); docs/PERFORMANCE.md records the method and results.
package bench
