// Package aggregate sums a dump's routines per distinct stack, state,
// label set and wait bucket, for the writers that need every routine
// before they write anything (debug=1, pprof, folded).
package aggregate
