// Package synctest prints a traceback of goroutines blocked durably inside a
// testing/synctest bubble (Go 1.25+: `(durable)` and `, synctest bubble N`).
//
//	GOTRACEBACK=all go test ./testdata/gen/synctest
package synctest

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		var wg sync.WaitGroup
		wg.Add(1)
		var cond = sync.NewCond(&sync.Mutex{})
		go func() { <-ch }()
		go func() { ch <- 1; ch <- 2 }()
		go func() {
			select {
			case <-ch:
			case <-time.After(time.Hour):
			}
		}()
		go func() { time.Sleep(time.Hour) }()
		go func() { wg.Wait() }()
		go func() { cond.L.Lock(); cond.Wait() }()
		synctest.Wait()
		panic("inside the bubble")
	})
}
