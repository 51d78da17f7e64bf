// Command leakproof runs a small service with leaks of several kinds and
// prints its GC-proven leak profile, fetched over HTTP from its own
// net/http/pprof endpoint as a client would:
// GET /debug/pprof/goroutineleak?debug=2. Run it with Go 1.27+ (the
// profile is GA there):
//
//	GOTOOLCHAIN=go1.27.3 go run ./testdata/gen/leakproof > testdata/go/leakproof_go127.txt
//
// What it leaves behind:
//   - 200 request handlers blocked sending a result nobody will read: each
//     was started by its own request goroutine, which gave up and returned
//     (proven leaked: nothing reachable holds the channel);
//   - 60 goroutines of one fan-out waiting on a channel whose only other
//     holder returned (proven leaked);
//   - 120 subscribers blocked receiving on channels kept in a global
//     registry that nobody closes (a leak the GC cannot prove: the
//     registry keeps the channels reachable; analyze's heuristic suspects
//     it);
//   - a pool of 8 workers waiting on a shared queue (not a leak);
//   - 5 goroutines sleeping (not a leak).
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"sync"
	"time"
)

// registry keeps every subscription channel reachable, forever.
var registry struct {
	sync.Mutex
	subs []chan string
}

// queue feeds the worker pool; it stays reachable through this global.
var queue = make(chan func())

func handle(result chan<- int) {
	time.Sleep(time.Millisecond) // work
	result <- 42                 // the requester stopped waiting: blocks forever
}

// request starts a handler and gives up before it answers.
func request(started *sync.WaitGroup) {
	defer started.Done()
	result := make(chan int)
	go handle(result)
	select {
	case v := <-result:
		_ = v
	case <-time.After(100 * time.Microsecond):
	}
}

func fanOutWorker(in <-chan int) {
	for range in { // nobody sends or closes: blocks forever
	}
}

func fanOut() {
	in := make(chan int)
	for range 60 {
		go fanOutWorker(in)
	}
}

func subscribe(started *sync.WaitGroup) {
	defer started.Done()
	ch := make(chan string)
	registry.Lock()
	registry.subs = append(registry.subs, ch)
	registry.Unlock()
	go func() {
		for msg := range ch {
			_ = msg
		}
	}()
}

func worker() {
	for f := range queue {
		f()
	}
}

func main() {
	var started sync.WaitGroup
	for range 200 {
		started.Add(1)
		go request(&started)
	}
	fanOut()
	for range 120 {
		started.Add(1)
		go subscribe(&started)
	}
	for range 8 {
		go worker()
	}
	for range 5 {
		go time.Sleep(time.Hour)
	}
	started.Wait()
	time.Sleep(200 * time.Millisecond) // every handler reaches its send

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	srv := &http.Server{Handler: http.DefaultServeMux}
	go srv.Serve(ln)
	resp, err := http.Get("http://" + ln.Addr().String() + "/debug/pprof/goroutineleak?debug=2")
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		fail(fmt.Errorf("%s (%s needs Go 1.27+): %s", resp.Status, runtime.Version(), body))
	}
	if _, err := io.Copy(os.Stdout, resp.Body); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "leakproof:", err)
	os.Exit(1)
}
