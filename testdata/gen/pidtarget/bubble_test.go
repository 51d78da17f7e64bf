//go:build go1.25

// synctest needs the timers of Go 1.23 on, which this module's go 1.20
// line would turn off.
//go:debug asynctimerchan=0

package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestBubble parks goroutines in a synctest bubble — durably blocked on a
// channel of the bubble and asleep on its clock, and on a mutex, which
// is not durable — then answers commands as the program does, from
// inside the bubble (reading its input is not durable either, so the
// bubble's clock stands still), and lets them all go when its input
// closes.
func TestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := make(chan int)
		var mu sync.Mutex
		mu.Lock()
		var started, done sync.WaitGroup
		started.Add(3)
		done.Add(3)
		go func() { defer done.Done(); started.Done(); <-c }()
		go func() { defer done.Done(); started.Done(); time.Sleep(time.Hour) }()
		go func() { defer done.Done(); started.Done(); mu.Lock(); mu.Unlock() }()
		started.Wait()
		for i := 0; i < 100; i++ {
			runtime.Gosched() // and let them park
		}
		fmt.Printf("ready %d\n", os.Getpid())
		serve()
		close(c)
		mu.Unlock()
		done.Wait()
	})
}
