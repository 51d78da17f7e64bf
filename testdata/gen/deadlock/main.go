// Command deadlock makes the runtime report a deadlock. It imports
// nothing that starts a thread the runtime cannot see (net, os/signal), so
// that the runtime's deadlock check can run.
//
//	go run ./testdata/gen/deadlock MODE
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: deadlock asleep|goexit")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "asleep":
		asleep()
	case "goexit":
		goexit()
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}

// asleep blocks every goroutine: "all goroutines are asleep - deadlock!".
func asleep() {
	var mu sync.Mutex
	ch := make(chan int)
	go func() {
		mu.Lock()
		ch <- 1
	}()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	<-ch
}

// goexit ends the main goroutine, the only one, with runtime.Goexit:
// "no goroutines (main called runtime.Goexit) - deadlock!".
func goexit() {
	runtime.Goexit()
}
