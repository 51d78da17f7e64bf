// Command stuck is the live Go program of the timeline tests: it serves
// net/http/pprof on a loopback port and keeps goroutines in two known
// shapes, so that repeated captures have stuck goroutines and changing ids.
//
//   - 7 goroutines block forever receiving from a channel no one sends on
//     (main.stuckWorker, state "chan receive"): the same id, state and
//     stack in every capture.
//   - main.churn starts a goroutine every 5ms that sleeps 20ms and exits
//     (main.shortLived): ids appear and go away between captures.
//
// It prints "listening ADDR" once everything runs and exits when its
// standard input closes. The tests build it with
// `go build -o DIR/stuck ./testdata/gen/stuck` (from the repository root)
// and capture /debug/pprof/goroutine?debug=2 three times.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"time"
)

// stuckWorkers is how many goroutines block forever.
const stuckWorkers = 7

//go:noinline
func stuckWorker(ch chan struct{}, ready *sync.WaitGroup) {
	ready.Done()
	<-ch
}

//go:noinline
func shortLived() { time.Sleep(20 * time.Millisecond) }

func churn() {
	for range time.Tick(5 * time.Millisecond) {
		go shortLived()
	}
}

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	never := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(stuckWorkers)
	for range stuckWorkers {
		go stuckWorker(never, &ready)
	}
	ready.Wait()
	go churn()
	go http.Serve(ln, nil)
	fmt.Println("listening", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}
