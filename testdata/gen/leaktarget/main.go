// Command leaktarget is a live capture target with leaked goroutines, for
// the `--mode leak` tests (cmd/stackdump/capture_leak_test.go): it starts
// -leaked goroutines blocked sending on channels nothing else holds (the
// goroutine leak profile proves them leaked), -parked goroutines blocked
// on a channel a global holds (blocked, but not leaked: the channel is
// reachable), then serves net/http/pprof (as `import _ "net/http/pprof"`
// registers it) and stackdump's endpoint at /debug/stackdump on
// 127.0.0.1 (mode=leak refused above -leak-max-goroutines, its
// HandlerOptions.Capture.LeakMaxGoroutines), and prints "addr HOST:PORT".
//
// With -grow N, each debug=2 request for a goroutine profile
// (/debug/pprof/goroutine or /debug/pprof/goroutineleak) first leaks N
// more goroutines the same way: a leak that grows with every snapshot, for
// the `watch --leak-every` tests (cmd/stackdump/watch_leak_test.go).
//
// Built with GOTOOLCHAIN=go1.27.3 it has the goroutineleak profile; built
// with Go 1.26 it has none, and leak captures of it fail clearly.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stackdump/stackdump/dumper"
)

// reachable keeps the parked goroutines' channel reachable from a global.
var reachable = make(chan int)

func main() {
	leaked := flag.Int("leaked", 5, "goroutines to leak")
	parked := flag.Int("parked", 3, "goroutines blocked on a reachable channel")
	leakMax := flag.Int("leak-max-goroutines", 0, "the endpoint's leak-mode bound (0: dumper's default, negative: none)")
	grow := flag.Int("grow", 0, "goroutines leaked more before each debug=2 goroutine profile request")
	flag.Parse()
	var started sync.WaitGroup
	for range *leaked {
		started.Add(1)
		go leakSender(&started)
	}
	for range *parked {
		started.Add(1)
		go parkReceiver(&started)
	}
	started.Wait()
	senders := *leaked
	waitBlocked(senders)
	http.Handle("/debug/stackdump", dumper.Handler(dumper.HandlerOptions{Capture: dumper.CaptureOptions{LeakMaxGoroutines: *leakMax}}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("addr", l.Addr())
	http.Serve(l, growing(*grow, senders, http.DefaultServeMux))
}

// growing leaks n more goroutines before each debug=2 goroutine profile
// request h answers, and answers once every leakSender (senders of them
// before the first request) is blocked, so the profile counts them all.
func growing(n, senders int, h http.Handler) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n > 0 && strings.HasPrefix(r.URL.Path, "/debug/pprof/goroutine") && r.URL.Query().Get("debug") == "2" {
			mu.Lock()
			var started sync.WaitGroup
			for range n {
				started.Add(1)
				go leakSender(&started)
			}
			started.Wait()
			senders += n
			waitBlocked(senders)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// waitBlocked returns once n leakSender goroutines are blocked in their
// send: started.Done runs just before the send, and a goroutine profile
// taken in between would count one not yet blocked (nor leaked).
func waitBlocked(n int) {
	buf := make([]byte, 1<<20)
	for {
		for {
			m := runtime.Stack(buf, true)
			if m < len(buf) {
				buf = buf[:m]
				break
			}
			buf = make([]byte, 2*len(buf))
		}
		blocked := 0
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "[chan send") && strings.Contains(g, "main.leakSender(") {
				blocked++
			}
		}
		if blocked >= n {
			return
		}
		buf = buf[:cap(buf)]
		time.Sleep(time.Millisecond)
	}
}

// leakSender sends on a channel only it holds: no one can ever receive.
//
//go:noinline
func leakSender(started *sync.WaitGroup) {
	ch := make(chan int)
	started.Done()
	ch <- 1
}

// parkReceiver waits on the global channel: blocked, not leaked.
//
//go:noinline
func parkReceiver(started *sync.WaitGroup) {
	started.Done()
	<-reachable
}
