// Command progress is the live Go program of the timeline tests of
// progress: it serves net/http/pprof on a loopback port and keeps
// goroutines that move in known ways between captures.
//
//   - 3 goroutines block forever from the start (main.blockedFromStart,
//     "chan receive"): stuck in every capture.
//   - main.late sleeps in a loop in main.beforeWait until the first
//     "next" command, then blocks forever in main.waitAfterFirst
//     ("chan receive"): stuck from the second capture on.
//   - main.spin computes without pause in one frame ("runnable" or
//     "running" in every capture): busy, not stuck.
//   - an http.Client keeps 4 keep-alive connections to the program's own
//     server idle in its Transport's pool (net/http's persistConn
//     readLoop and writeLoop, the server's conn.serve), and reuses them
//     for 4 requests at each "next": idle in a pool, the standard
//     library's own work.
//
// It prints "listening ADDR" once everything runs, answers each "next"
// line on its standard input with "phase N" once it took effect, and
// exits when its standard input closes. The tests build it with
// `go build -o DIR/progress ./testdata/gen/progress` (from the repository
// root, internal/livechild) and capture /debug/pprof/goroutine?debug=2
// between commands.
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"time"
)

// poolConns is how many keep-alive connections the client keeps idle.
const poolConns = 4

var sink uint64

//go:noinline
func blockedFromStart(never chan struct{}, ready *sync.WaitGroup) {
	ready.Done()
	<-never
}

//go:noinline
func beforeWait(moved chan struct{}) {
	for {
		select {
		case <-moved:
			return
		default:
			time.Sleep(5 * time.Millisecond)
		}
	}
}

//go:noinline
func waitAfterFirst(never chan struct{}, parked chan<- struct{}) {
	parked <- struct{}{}
	<-never
}

func late(never, moved chan struct{}, parked chan<- struct{}) {
	beforeWait(moved)
	waitAfterFirst(never, parked)
}

//go:noinline
func spin() {
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		sink = x
	}
}

// pool is an http.Client whose Transport keeps poolConns connections to
// the program's own server; a round sends poolConns requests at once, and
// the handler holds each until all arrived, so that every connection of
// the pool serves one.
type pool struct {
	client  *http.Client
	base    string
	mu      sync.Mutex
	arrived sync.WaitGroup
	open    chan struct{}
}

func (p *pool) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	open := p.open
	p.mu.Unlock()
	p.arrived.Done()
	<-open
	fmt.Fprintln(w, "done")
}

func (p *pool) round() {
	p.mu.Lock()
	p.open = make(chan struct{})
	p.mu.Unlock()
	p.arrived.Add(poolConns)
	var done sync.WaitGroup
	for range poolConns {
		done.Add(1)
		go func() {
			defer done.Done()
			resp, err := p.client.Get(p.base + "/work")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	p.arrived.Wait()
	close(p.open)
	done.Wait()
}

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	never := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(3)
	for range 3 {
		go blockedFromStart(never, &ready)
	}
	ready.Wait()
	moved, parked := make(chan struct{}), make(chan struct{})
	go late(never, moved, parked)
	go spin()

	p := &pool{
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: poolConns}},
		base:   "http://" + ln.Addr().String(),
	}
	http.HandleFunc("/work", p.serve)
	go http.Serve(ln, nil)
	p.round()
	fmt.Println("listening", ln.Addr())

	in := bufio.NewScanner(os.Stdin)
	for phase := 1; in.Scan(); phase++ {
		if in.Text() != "next" {
			fmt.Fprintf(os.Stderr, "unknown command %q\n", in.Text())
			os.Exit(2)
		}
		if phase == 1 {
			close(moved)
			<-parked
		}
		p.round()
		fmt.Println("phase", phase)
	}
}
