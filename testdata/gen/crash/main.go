// Command crash prints real Go tracebacks in one named shape per mode, to
// make the fixtures of testdata/go (see README.md for the exact commands).
//
//	go run ./testdata/gen/crash MODE
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crash MODE")
		os.Exit(2)
	}
	modes := map[string]func(){
		"system":    modeSystem,
		"repanic":   modeRepanic,
		"multiline": modeMultiline,
		"labels":    modeLabels,
		"elided":    modeElided,
		"ancestors": modeAncestors,
		"race":      modeRace,
		"sigquit":   modeSigquit,
		"mapwrites": modeMapWrites,
		"overflow":  modeOverflow,
		"stacks2":   modeStacks2,
		"leak":      modeLeak,
		"debug2":    modeDebug2,
		"nested":    modeNested,
		"sigabrt":   modeSigabrt,
		"nilderef":  modeNilDeref,
		"fatal":     modeFatal,
		"zombie":    modeZombie,
	}
	f, ok := modes[os.Args[1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
	f()
}

// startAll parks goroutines in many different ways and returns once they
// are all blocked.
func startAll() {
	var ready sync.WaitGroup
	block := make(chan struct{})
	var mu sync.Mutex
	mu.Lock()
	var rw sync.RWMutex
	rw.Lock()
	cond := sync.NewCond(&sync.Mutex{})
	var wg sync.WaitGroup
	wg.Add(1)

	spawn := func(f func()) {
		ready.Add(1)
		go func() {
			ready.Done()
			f()
		}()
	}
	spawn(func() { <-block })
	spawn(func() { block <- struct{}{} })
	spawn(func() {
		select {
		case <-block:
		case <-time.After(time.Hour):
		}
	})
	spawn(func() { select {} })
	spawn(func() { time.Sleep(time.Hour) })
	spawn(func() { mu.Lock() })
	spawn(func() { rw.RLock() })
	spawn(func() { rw.Lock() })
	spawn(func() { cond.L.Lock(); cond.Wait() })
	spawn(func() { wg.Wait() })
	spawn(func() {
		runtime.LockOSThread()
		<-block
	})
	spawn(func() { var c chan int; <-c })
	spawn(func() { Generic[int, string](3, "x", block) })
	spawn(func() { (&T{n: 7}).Method(block) })
	spawn(func() { W{a: 1, b: 2}.M(block) })
	spawn(func() { structArg(S{a: 1, b: [3]int{1, 2, 3}}, [3]int{4, 5, 6}, 7, block) })
	spawn(func() { manyArgs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, block) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		spawn(func() { ln.Accept() })
	}
	ready.Wait()
	time.Sleep(100 * time.Millisecond)
}

// Generic blocks in a generic function (shown as Generic[...]).
//
//go:noinline
func Generic[K comparable, V any](k K, v V, block chan struct{}) {
	<-block
}

// T has a pointer method.
type T struct{ n int }

// Method blocks in a pointer method.
//
//go:noinline
func (t *T) Method(block chan struct{}) { <-block }

// W has a value method.
type W struct{ a, b int }

// M blocks in a value method.
//
//go:noinline
func (w W) M(block chan struct{}) { <-block }

// S is an aggregate argument.
type S struct {
	a int
	b [3]int
}

//go:noinline
func structArg(s S, arr [3]int, x int, block chan struct{}) { <-block }

//go:noinline
func manyArgs(a, b, c, d, e, f, g, h, i, j, k, l int, block chan struct{}) { <-block }

func inlinee(s string) { panic(s) }

//go:noinline
func doPanic(s string) { inlinee(s) }

func modeSystem() {
	startAll()
	doPanic("system traceback")
}

func modeRepanic() {
	startAll()
	defer func() {
		r := recover()
		panic(r) // same value: [recovered, repanicked] (1.25+)
	}()
	defer func() {
		recover()
		panic("second value")
	}()
	panic("first value")
}

func modeMultiline() {
	defer func() {
		recover()
		panic(fmt.Errorf("wrapped:\nline two\n\tline three"))
	}()
	panic("first\nsecond line")
}

func modeLabels() {
	var ready sync.WaitGroup
	block := make(chan struct{})
	for _, ls := range [][]string{
		{"svc", "users"},
		{"svc", "orders", "weird key", "a\"b\nc]:"},
		{"tab", "x\ty", "unicode", "héllo ✓"},
	} {
		ready.Add(1)
		go pprof.Do(context.Background(), pprof.Labels(ls...), func(context.Context) {
			ready.Done()
			<-block
		})
	}
	ready.Add(1)
	go func() { ready.Done(); <-block }()
	ready.Wait()
	time.Sleep(50 * time.Millisecond)
	pprof.Do(context.Background(), pprof.Labels("svc", "main"), func(context.Context) {
		panic("labels")
	})
}

//go:noinline
func recurse(n int) int {
	if n == 0 {
		panic("deep")
	}
	return recurse(n-1) + 1
}

func modeElided() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		recurse(150)
	}()
	<-done
}

func modeAncestors() {
	block := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(1)
	go func() {
		go func() {
			go func() {
				ready.Done()
				<-block
			}()
		}()
	}()
	ready.Wait()
	time.Sleep(50 * time.Millisecond)
	panic("ancestors")
}

var racy int

//go:noinline
func raceWrite() { racy++ }

//go:noinline
func raceRead() int { return racy }

func modeRace() {
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

func modeSigquit() {
	startAll()
	syscall.Kill(os.Getpid(), syscall.SIGQUIT)
	time.Sleep(time.Second)
}

func modeMapWrites() {
	m := map[int]int{}
	for i := range 4 {
		go func() {
			for j := 0; ; j++ {
				m[j%100+i] = j
			}
		}()
	}
	time.Sleep(5 * time.Second)
}

//go:noinline
func overflow(n int) int {
	var buf [64]byte
	buf[n%64] = byte(n)
	return overflow(n+1) + int(buf[3])
}

func modeOverflow() {
	startAll()
	overflow(0)
}

func modeStacks2() {
	startAll()
	buf := make([]byte, 1<<20)
	for range 2 {
		n := runtime.Stack(buf, true)
		os.Stdout.Write(buf[:n])
		fmt.Println()
	}
}

func modeLeak() {
	for range 3 {
		go func() {
			ch := make(chan int)
			ch <- 1 // nobody ever receives: leaked
		}()
	}
	block := make(chan struct{})
	go func() { <-block }()
	time.Sleep(50 * time.Millisecond)
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		fmt.Fprintln(os.Stderr, "goroutineleak profile not available (build with GOEXPERIMENT=goroutineleakprofile)")
		os.Exit(1)
	}
	p.WriteTo(os.Stdout, 2)
	close(block)
}

func modeDebug2() {
	startAll()
	pprof.Lookup("goroutine").WriteTo(os.Stdout, 2)
}

// modeNested panics inside a deferred call while a panic is unwinding,
// without recovering: the runtime prints both values, nested.
func modeNested() {
	defer func() {
		panic(fmt.Errorf("while cleaning up:\nstill broken"))
	}()
	panic("outer failure")
}

// modeSigabrt sends the process SIGABRT, as `kill -ABRT` does.
func modeSigabrt() {
	startAll()
	syscall.Kill(os.Getpid(), syscall.SIGABRT)
	time.Sleep(time.Second)
}

// modeNilDeref writes through a nil pointer: a SIGSEGV the runtime turns
// into a panic.
func modeNilDeref() {
	startAll()
	var t *T
	setN(t, 3)
}

//go:noinline
func setN(t *T, n int) { t.n = n }

// modeFatal unlocks an unlocked mutex: a fatal error no recover can stop.
func modeFatal() {
	startAll()
	var mu sync.Mutex
	mu.Unlock()
}

// zombie and zombieKeep hold what modeZombie hands the collector.
var (
	zombie     **int
	zombieKeep []**int
)

// modeZombie makes the runtime report a free object the collector marked:
// every other one of 8192 8-byte objects is kept, the address of a freed
// one is turned back into a pointer after it was swept, and the next sweep
// prints every object of its span (1,024 lines, "runtime: marked free
// object in span ...") before "fatal error: found pointer to free object"
// and the goroutines: a crash line more than 1,000 lines from the top.
func modeZombie() {
	objs := make([]**int, 8192)
	for i := range objs {
		objs[i] = new(*int)
	}
	addr := uintptr(unsafe.Pointer(objs[4097]))
	for i := 0; i < len(objs); i += 2 {
		zombieKeep = append(zombieKeep, objs[i])
	}
	objs = nil
	runtime.GC()
	runtime.GC()
	zombie = (**int)(unsafe.Pointer(addr)) // the bad use of unsafe.Pointer this mode is about
	runtime.GC()
	runtime.GC()
	time.Sleep(time.Second)
}
