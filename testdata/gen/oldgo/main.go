// Command oldgo prints tracebacks from an older toolchain (Go 1.20, 1.21),
// for the forms those versions print: `created by F` without a goroutine id
// (1.20), `...N frames elided...` (1.21+), `...additional frames elided...`
// (1.20), `panic(` args without `?`, `glob..func` closures.
//
//	GOTOOLCHAIN=go1.21.13 go run . panic
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: oldgo panic|deep")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "panic":
		modePanic()
	case "deep":
		modeDeep()
	}
}

var pkgClosure = func(block chan struct{}) { <-block }

//go:noinline
func Generic[K comparable](k K, block chan struct{}) { <-block }

func modePanic() {
	block := make(chan struct{})
	var ready sync.WaitGroup
	var mu sync.Mutex
	mu.Lock()
	var wg sync.WaitGroup
	wg.Add(1)
	for _, f := range []func(){
		func() { <-block },
		func() { pkgClosure(block) },
		func() { Generic(1, block) },
		func() { mu.Lock() },
		func() { wg.Wait() },
		func() { time.Sleep(time.Hour) },
	} {
		ready.Add(1)
		f := f
		go func() {
			ready.Done()
			f()
		}()
	}
	ready.Wait()
	time.Sleep(50 * time.Millisecond)
	panic(fmt.Errorf("old toolchain\nsecond line"))
}

//go:noinline
func recurse(n int) int {
	if n == 0 {
		panic("deep")
	}
	return recurse(n-1) + 1
}

func modeDeep() { recurse(200) }
