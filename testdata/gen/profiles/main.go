// Command profiles writes real goroutine profiles of a program whose
// goroutines wait in known functions, for the debug=1 and pprof reader tests:
//
//	<out>/debug1/<name>.txt   pprof.Lookup("goroutine").WriteTo(f, 1)
//	<out>/pprof/<name>.pb.gz  pprof.Lookup("goroutine").WriteTo(f, 0)
//
// With -leak the program must be built with
// GOEXPERIMENT=goroutineleakprofile; it then writes the goroutineleak
// profile instead, whose goroutines are the leaked ones.
//
// The counts per function are fixed (see the constants) so that tests can
// check them; README.md has the exact commands.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// How many goroutines wait in each function. Tests assert these counts.
const (
	nChanRecv  = 10 // main.waitChanRecv, chan receive
	nChanSend  = 5  // main.waitChanSend, chan send
	nSelect    = 3  // main.waitSelect, select
	nMutex     = 4  // main.waitMutex, sync.Mutex.Lock
	nSleep     = 2  // main.waitSleep, time.Sleep
	nLabelled  = 6  // main.waitLabelled, labels {"svc":"users","weird key":"a\"b\nc"}
	nInlined   = 7  // main.waitInlinedCaller -> main.inlinedRecv (inlined)
	nWaitGroup = 1  // main.waitGroup, sync.WaitGroup.Wait
)

func main() {
	out := flag.String("out", "testdata", "directory holding debug1/ and pprof/")
	name := flag.String("name", runtime.Version(), "base name of the files written")
	leak := flag.Bool("leak", false, "write the goroutineleak profile (needs GOEXPERIMENT=goroutineleakprofile)")
	flag.Parse()
	if err := run(*out, *name, *leak); err != nil {
		log.Fatal(err)
	}
}

func run(out, name string, leak bool) error {
	profile := "goroutine"
	if leak {
		profile = "goroutineleak"
	}
	p := pprof.Lookup(profile)
	if p == nil {
		return fmt.Errorf("no %s profile in this build (GOEXPERIMENT=goroutineleakprofile?)", profile)
	}
	before := runtime.NumGoroutine()
	release := startWaiters(leak)
	want := before + nChanRecv + nChanSend + nSelect + nMutex + nSleep + nLabelled + nInlined + nWaitGroup
	if err := waitFor(want); err != nil {
		return err
	}
	for _, f := range []struct {
		path  string
		debug int
	}{
		{filepath.Join(out, "debug1", name+".txt"), 1},
		{filepath.Join(out, "pprof", name+".pb.gz"), 0},
	} {
		if err := write(f.path, p, f.debug); err != nil {
			return err
		}
	}
	release()
	return nil
}

// startWaiters starts every waiting goroutine. Unless leak is set, the
// returned function releases them (the goroutineleak profile only reports
// goroutines blocked on objects nothing else can reach, so for it the
// channels and locks are dropped instead).
func startWaiters(leak bool) (release func()) {
	recv, send, sel, inl := make(chan int), make(chan int), make(chan int), make(chan int)
	mu := new(sync.Mutex)
	mu.Lock()
	wg := new(sync.WaitGroup)
	wg.Add(1)
	for range nChanRecv {
		go waitChanRecv(recv)
	}
	for range nChanSend {
		go waitChanSend(send)
	}
	for range nSelect {
		go waitSelect(sel)
	}
	for range nMutex {
		go waitMutex(mu)
	}
	for range nSleep {
		go waitSleep()
	}
	for range nInlined {
		go waitInlinedCaller(inl)
	}
	for range nWaitGroup {
		go waitGroup(wg)
	}
	lab := make(chan int)
	pprof.Do(context.Background(), pprof.Labels("svc", "users", "weird key", "a\"b\nc"), func(context.Context) {
		for range nLabelled {
			go waitLabelled(lab)
		}
	})
	if leak {
		return func() {}
	}
	return func() {
		close(recv)
		close(sel)
		close(inl)
		close(lab)
		mu.Unlock()
		wg.Done()
		for range nChanSend {
			<-send
		}
	}
}

// waitFor waits until n goroutines exist, then a little longer so that the
// last ones started are parked.
func waitFor(n int) error {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d goroutines started", runtime.NumGoroutine(), n)
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return nil
}

func write(path string, p *pprof.Profile, debug int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteTo(f, debug); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

//go:noinline
func waitChanRecv(c chan int) { <-c }

//go:noinline
func waitChanSend(c chan int) { c <- 1 }

//go:noinline
func waitSelect(c chan int) {
	select {
	case <-c:
	case <-time.After(time.Hour):
	}
}

//go:noinline
func waitMutex(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

//go:noinline
func waitSleep() { time.Sleep(time.Hour) }

//go:noinline
func waitLabelled(c chan int) { <-c }

//go:noinline
func waitInlinedCaller(c chan int) { inlinedRecv(c) }

// inlinedRecv is small enough for the compiler to inline into its caller.
func inlinedRecv(c chan int) { <-c }

//go:noinline
func waitGroup(wg *sync.WaitGroup) { wg.Wait() }
