//go:build cgo

package main

/*
#include <unistd.h>
static void sleepInC(void) { for (;;) sleep(3600); }
*/
import "C"

// blockInC parks a goroutine in a C function that never returns: the Go
// side shows it in a system call (runtime.cgocall).
func blockInC() bool {
	started.Add(1)
	go func() {
		started.Done()
		C.sleepInC()
	}()
	return true
}
