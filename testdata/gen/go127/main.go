// Command go127 prints real Go 1.27 tracebacks and goroutineleak profiles,
// one named shape per mode, for the *_go127 fixtures of testdata/go (see
// ../README.md for the exact commands). It is its own module with
// `go 1.27` so that tracebacklabels is on by default, as in any go 1.27
// module.
//
//	GOTOOLCHAIN=go1.27.3 go run . MODE
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go127 MODE")
		os.Exit(2)
	}
	modes := map[string]func(){
		"panic":     modePanic,
		"leak0":     func() { modeLeak(0) },
		"leak1":     func() { modeLeak(1) },
		"leak2":     func() { modeLeak(2) },
		"overflow":  modeOverflow,
		"sigquit":   modeSigquit,
		"race":      modeRace,
		"racepanic": modeRacePanic,
	}
	f, ok := modes[os.Args[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
	f()
}

// startLabelled parks goroutines, some with pprof labels (printed in the
// goroutine headers by default in a go 1.27 module), and returns once
// they are all blocked.
func startLabelled() {
	var ready sync.WaitGroup
	block := make(chan struct{})
	var mu sync.Mutex
	mu.Lock()
	spawn := func(f func()) {
		ready.Add(1)
		go func() {
			ready.Done()
			f()
		}()
	}
	for _, ls := range [][]string{
		{"svc", "users"},
		{"svc", "orders", "weird key", "a\"b\nc]:"},
		{"tab", "x\ty", "unicode", "héllo ✓"},
	} {
		spawn(func() {
			pprof.Do(context.Background(), pprof.Labels(ls...), func(context.Context) { <-block })
		})
	}
	spawn(func() { <-block })
	spawn(func() { mu.Lock() })
	spawn(func() { time.Sleep(time.Hour) })
	spawn(func() { Generic[int, string](3, "x", block) })
	ready.Wait()
	time.Sleep(100 * time.Millisecond)
}

// Generic blocks in a generic function (shown as Generic[...]).
//
//go:noinline
func Generic[K comparable, V any](k K, v V, block chan struct{}) { <-block }

func modePanic() {
	startLabelled()
	pprof.Do(context.Background(), pprof.Labels("svc", "main"), func(context.Context) {
		panic("labelled panic")
	})
}

// modeLeak writes the goroutineleak profile (GA in Go 1.27) at debug.
func modeLeak(debug int) {
	for i := range 3 {
		go pprof.Do(context.Background(), pprof.Labels("leaker", strconv.Itoa(i)), func(context.Context) {
			ch := make(chan int)
			ch <- 1 // nobody ever receives: leaked
		})
	}
	var mu sync.Mutex
	mu.Lock()
	go func() {
		var lost sync.Mutex
		lost.Lock()
		lost.Lock() // nobody else can reach lost: leaked
	}()
	block := make(chan struct{})
	go func() { <-block }()
	time.Sleep(50 * time.Millisecond)
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		fmt.Fprintln(os.Stderr, "goroutineleak profile not available")
		os.Exit(1)
	}
	p.WriteTo(os.Stdout, debug)
	close(block)
}

//go:noinline
func overflow(n int) int {
	var buf [64]byte
	buf[n%64] = byte(n)
	return overflow(n+1) + int(buf[3])
}

func modeOverflow() {
	startLabelled()
	overflow(0)
}

func modeSigquit() {
	startLabelled()
	syscall.Kill(os.Getpid(), syscall.SIGQUIT)
	time.Sleep(time.Second)
}

var racy int

//go:noinline
func raceWrite() { racy++ }

//go:noinline
func raceRead() int { return racy }

// races makes two data races: a plain variable and a map, each from a
// goroutine against the main goroutine.
func races() {
	done := make(chan bool)
	go func() {
		raceWrite()
		done <- true
	}()
	_ = raceRead()
	<-done
	m := map[int]int{}
	go func() {
		m[1] = 2
		done <- true
	}()
	m[2] = 3
	<-done
	time.Sleep(10 * time.Millisecond)
}

func modeRace() { races() }

// modeRacePanic makes the same race three times over (run it with
// GORACE=suppress_equal_stacks=0:suppress_equal_addresses=0 to have it
// reported three times) and then panics.
func modeRacePanic() {
	done := make(chan bool)
	for range 3 {
		go func() {
			raceWrite()
			done <- true
		}()
		_ = raceRead()
		<-done
	}
	startLabelled()
	panic("after the races")
}
