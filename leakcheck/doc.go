// Package leakcheck fails tests that leave goroutines behind. It has
// goleak's API (go.uber.org/goleak v1.3.0, and RunOnFailure and
// IgnoreCreatedBy of goleak's main branch), so switching is one import:
//
//	func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
//
//	func TestServer(t *testing.T) {
//		defer leakcheck.VerifyNone(t)
//		…
//	}
//
// What it adds:
//
//   - Leftovers are reported in counted groups of identical stacks, one
//     headline per group with the count, states and creator, then the top
//     frames and the ids; ten thousand leaked goroutines of three kinds
//     print three groups, not ten thousand stacks. The traceback is read by
//     stackdump's own reader (package formats/gotext) and grouped by
//     package dedupe.
//   - On Go 1.27+, the runtime's goroutine leak profile proves leaks: a
//     check with leftovers runs the garbage collection cycle that marks
//     goroutines blocked on something no runnable goroutine can reach, and
//     a proven leak fails at once ("proven leaked"), without the retry
//     sleeps. Leftovers that are running, sleeping or blocked on something
//     reachable are retried as goleak retries them. The profile is looked
//     up at run time, so the package builds and works on Go 1.26.
//   - VerifyNone checks the whole process, as goleak's does, in subtests
//     too; OnlyOwnGoroutines narrows a check to the goroutines whose
//     creator chain leads back to the calling goroutine (scope.go), at the
//     cost of the leaks it documents.
//   - Failures start with goleak's words ("found unexpected goroutines",
//     "goleak: Errors on successful test run"), so log scrapers and tests
//     that match goleak's text still match; FullStacks shows every frame,
//     and GoleakReport prints goleak v1.3.0's own report, goroutine by
//     goroutine.
//   - It is cheap: one runtime.Stack pass into a buffer sized from the last
//     pass, ids read from the headers alone, and only the goroutines no id
//     rule ignored are parsed, once each while their text does not change.
//
// Defaults match goleak's: the testing package's, os/signal's, cgo's and
// runtime/trace's background goroutines are ignored, and a check retries
// 20 times, sleeping 1µs doubling up to 100ms. Beyond goleak, the goroutine
// of another test running in parallel is ignored (not what it starts).
// docs/leaks.md lists every difference from goleak that remains.
package leakcheck
