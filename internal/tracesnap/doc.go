// Package tracesnap reads the goroutine snapshot in a Go execution trace:
// the last state and stack of every goroutine at the end of a
// runtime/trace recording.
//
// Since Go 1.23 the tracer ends every generation by walking the goroutines
// that did nothing during it and recording their status and stack
// (GoStatusStack); goroutines that did something are described by their
// own events (GoCreate, GoBlock, GoUnblock, GoStop…). Reader decodes the
// wire format of trace version "go 1.26" (written by Go 1.26 and 1.27) and
// returns the goroutine state transitions and generation boundaries, in
// exactly the order golang.org/x/exp/trace's Reader returns them (its
// ordering of the per-thread event streams is reproduced, not
// approximated; compare_test.go checks it event for event on real traces
// and under fuzzing), while skipping everything a snapshot does not need.
// Builder replays those transitions into one stack.Routine per goroutine.
//
// The package links the standard library and package stack only, so that
// a service taking trace-mode dumps of itself (package dumper) does not
// link golang.org/x/exp/trace. Package formats/exectrace reads the older
// trace versions (Go 1.23 and 1.25) with golang.org/x/exp/trace and feeds
// its events to the same Builder.
package tracesnap
