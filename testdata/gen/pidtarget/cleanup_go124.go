//go:build go1.24

package main

import "runtime"

// blockInCleanup drops an object whose cleanup blocks forever and runs
// the garbage collector until a cleanup goroutine runs it.
func blockInCleanup() bool {
	ran := make(chan struct{})
	func() {
		x := new(finalized)
		runtime.AddCleanup(x, func(int) {
			close(ran)
			<-never
		}, 0)
	}()
	collectUntil(ran)
	return true
}
