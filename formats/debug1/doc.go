// Package debug1 reads and writes the text of /debug/pprof/goroutine?debug=1
// (stack.KindGoDebug1): one counted record per distinct stack, with its
// labels and frames (docs/profiles.md).
package debug1
