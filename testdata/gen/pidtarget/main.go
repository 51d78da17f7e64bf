// Command pidtarget is the live target of goproc's tests (goproc/*_test.go):
// a Go program whose goroutines are parked in known shapes — channels,
// select, mutexes, conditions, wait groups, sleep, network IO, a raw system
// call, a goroutine locked to its thread, pprof labels, inlined calls, deep
// recursion, arguments of every kind, generics, a deferred call during a
// panic — and, with -spin, goroutines spinning on a CPU. Its own module
// (go 1.20) lets every toolchain from go1.20 build it:
//
//	cd testdata/gen/pidtarget && GOTOOLCHAIN=go1.22.12 go build -o /tmp/pidtarget .
//
// It prints "ready PID" once every goroutine is parked, then answers each
// line of its standard input with one line:
//
//	dump PATH   writes runtime.Stack(all) to PATH: "done"
//	gc          runs two garbage collections, which stamp the parked
//	            goroutines' wait times: "done"
//	labels      the labelled goroutines: "labels ID k=v,k=v ID k=v ...", ids ascending
//
// Its test binary (go test -c, Go 1.25+) parks goroutines in a synctest
// bubble instead: -test.run=TestBubble.
//
// Flags: -n N more goroutines parked in main.parked (default 0), -spin N
// goroutines spinning in main.spin (default 0), -finalizer (the
// finalizer goroutine blocks in a finalizer, so tracebacks show it),
// -cleanup (Go 1.24+: a cleanup blocks the goroutine that runs it, in
// 1.24 the finalizer goroutine, so not with -finalizer), -churn N
// goroutines that never stop moving, -grow (goroutines started one after
// another, each growing its stack: morestack, newstack). It exits when
// its standard input closes.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	never     = make(chan int) // nothing is ever sent on it
	neverSend = make(chan int) // nobody ever receives from it
	held      sync.Mutex       // locked by main before anything waits on it
	rw        sync.RWMutex     // write-locked by main
	cond      = sync.NewCond(&sync.Mutex{})
	wg        sync.WaitGroup // Add(1) and never Done
	started   sync.WaitGroup // each parked goroutine is about to block
	labelsMu  sync.Mutex
	labelled  = map[int64]string{} // goroutine id → its labels as "k=v,k=v"
)

func main() {
	n := flag.Int("n", 0, "more goroutines parked in main.parked")
	spinners := flag.Int("spin", 0, "goroutines spinning in main.spin")
	finalizer := flag.Bool("finalizer", false, "block the finalizer goroutine in a finalizer")
	cleanup := flag.Bool("cleanup", false, "block a cleanup goroutine in a cleanup (Go 1.24+)")
	churners := flag.Int("churn", 0, "goroutines that never stop moving")
	inC := flag.Bool("cgo", false, "park a goroutine in C (built with cgo)")
	grow := flag.Bool("grow", false, "start goroutines that grow their stacks, one after another")
	flag.Parse()
	held.Lock()
	rw.Lock()
	wg.Add(1)
	start := func(f func()) {
		started.Add(1)
		go f()
	}
	start(func() { chanReceive(never) })
	start(func() { started.Done(); neverSend <- 1 })
	start(func() { started.Done(); selectTwo(never, neverSend) })
	start(func() { started.Done(); select {} })
	start(func() { started.Done(); var c chan int; <-c })
	start(func() { started.Done(); held.Lock() })
	start(func() { started.Done(); rw.RLock() })
	start(func() { started.Done(); rw.Lock() })
	start(func() { cond.L.Lock(); started.Done(); cond.Wait() })
	start(func() { started.Done(); wg.Wait() })
	start(func() { started.Done(); time.Sleep(time.Hour) })
	start(lockedToThread)
	start(func() { inlinedCaller(never) })
	start(func() { recurse(150, never) })
	start(func() { recurse(40, never) })
	start(func() { manyArgs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, never) })
	start(func() { structArgs(point{1, 2}, "hello", 3.5, []int{1, 2, 3}, never) })
	start(func() { generic[int](42, never) })
	start(func() { generic[string]("s", never) })
	start(func() { (&box{v: 7}).wait(never) })
	start(func() { panicking(never) })
	start(func() { closure(never)() })
	start(rawSyscall)
	startLabelled(start)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start(func() { started.Done(); ln.Accept() })
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start(func() { started.Done(); client.Read(make([]byte, 1)) })
	for i := 0; i < *n; i++ {
		start(func() { parked(never) })
	}
	for i := 0; i < *spinners; i++ {
		go spin()
	}
	for i := 0; i+1 < *churners; i += 2 {
		c := make(chan int)
		go churn(c, 1)
		go churn(c, 0)
	}
	if *churners%2 == 1 {
		go churn(nil, 0)
	}
	if *grow {
		go growStacks()
	}
	if *finalizer {
		blockInFinalizer()
	}
	if *inC && !blockInC() {
		fmt.Fprintln(os.Stderr, "-cgo needs a build with cgo")
		os.Exit(2)
	}
	if *cleanup && !blockInCleanup() {
		fmt.Fprintln(os.Stderr, "-cleanup needs Go 1.24 or later")
		os.Exit(2)
	}
	started.Wait()
	// Wait until every goroutine has parked: the runtime says so.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if allParked() {
			break
		}
	}
	fmt.Printf("ready %d\n", os.Getpid())
	serve()
}

// serve answers the commands of its standard input until it closes.
func serve() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "dump":
			buf := make([]byte, 1<<20)
			for {
				n := runtime.Stack(buf, true)
				if n < len(buf) {
					buf = buf[:n]
					break
				}
				buf = make([]byte, 2*len(buf))
			}
			if err := os.WriteFile(arg, buf, 0o644); err != nil {
				fmt.Println("error", err)
				continue
			}
			fmt.Println("done")
		case "gc":
			runtime.GC()
			runtime.GC()
			fmt.Println("done")
		case "labels":
			fmt.Println(labelsLine())
		default:
			fmt.Println("unknown command", cmd)
		}
	}
}

// allParked reports whether no goroutine of the program but the caller,
// the spinners, the churners and the growers is runnable.
func allParked() bool {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	for _, g := range strings.Split(string(buf[:n]), "\n\n")[1:] {
		if strings.Contains(g, "[runnable") && !strings.Contains(g, "main.spin(") && !strings.Contains(g, "main.churn(") && !strings.Contains(g, "main.growStacks") {
			return false
		}
	}
	return true
}

//go:noinline
func chanReceive(c chan int) {
	started.Done()
	<-c
}

//go:noinline
func selectTwo(a, b chan int) {
	select {
	case <-a:
	case b <- 1:
	}
}

func lockedToThread() {
	runtime.LockOSThread()
	started.Done()
	<-never
}

// inlinedCaller calls wait, which the compiler inlines into it.
//
//go:noinline
func inlinedCaller(c chan int) {
	started.Done()
	wait(c)
}

func wait(c chan int) { <-c }

//go:noinline
func recurse(depth int, c chan int) int {
	if depth == 0 {
		started.Done()
		return <-c
	}
	return recurse(depth-1, c) + 1
}

//go:noinline
func manyArgs(a, b, c, d, e, f, g, h, i, j, k, l int, ch chan int) int {
	started.Done()
	<-ch
	return a + b + c + d + e + f + g + h + i + j + k + l
}

type point struct{ x, y int }

//go:noinline
func structArgs(p point, s string, f float64, xs []int, ch chan int) {
	started.Done()
	<-ch
	fmt.Println(p, s, f, xs)
}

//go:noinline
func generic[T any](v T, ch chan int) {
	started.Done()
	<-ch
	fmt.Println(v)
}

type box struct{ v int }

//go:noinline
func (b *box) wait(ch chan int) {
	started.Done()
	<-ch
}

// panicking blocks in a deferred call while it panics.
//
//go:noinline
func panicking(ch chan int) {
	defer func() {
		started.Done()
		<-ch
	}()
	panic("pidtarget: blocked while panicking")
}

//go:noinline
func closure(ch chan int) func() {
	return func() {
		started.Done()
		<-ch
	}
}

// rawSyscall blocks in a read(2) on a pipe nobody writes to, outside the
// network poller: the goroutine is in a system call.
func rawSyscall() {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		panic(err)
	}
	started.Done()
	var b [1]byte
	syscall.Read(fds[0], b[:])
}

// startLabelled starts goroutines with pprof labels: one labelled, one
// it starts (which inherits them), one with two labels.
func startLabelled(start func(func())) {
	start(func() {
		pprof.Do(context.Background(), pprof.Labels("worker", "7"), func(context.Context) {
			// Started before this one says it started: main's Wait
			// must not see the count at zero in between.
			start(func() {
				noteLabels("worker=7")
				<-never
			})
			noteLabels("worker=7")
			<-never
		})
	})
	start(func() {
		pprof.Do(context.Background(), pprof.Labels("svc", "users", "weird key", "a\"b"), func(context.Context) {
			noteLabels("svc=users,weird key=a\"b")
			<-never
		})
	})
}

func noteLabels(ls string) {
	labelsMu.Lock()
	labelled[goid()] = ls
	labelsMu.Unlock()
	started.Done()
}

func labelsLine() string {
	labelsMu.Lock()
	defer labelsMu.Unlock()
	var ids []int64
	for id := range labelled {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var b strings.Builder
	b.WriteString("labels")
	for _, id := range ids {
		fmt.Fprintf(&b, " %d %s", id, strconv.Quote(labelled[id]))
	}
	return b.String()
}

// goid returns the calling goroutine's id, from its traceback header.
func goid() int64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	id, _ := strconv.ParseInt(f[1], 10, 64)
	return id
}

//go:noinline
func parked(c chan int) {
	started.Done()
	<-c
}

var sink int

//go:noinline
func spin() {
	for {
		sink += work(sink)
	}
}

//go:noinline
func work(x int) int { return x*7 + 1 }

type finalized struct{ _ [64]byte }

// blockInFinalizer drops an object whose finalizer blocks forever and
// runs the garbage collector until the finalizer goroutine runs it.
func blockInFinalizer() {
	ran := make(chan struct{})
	func() {
		x := new(finalized)
		runtime.SetFinalizer(x, func(*finalized) {
			close(ran)
			<-never
		})
	}()
	collectUntil(ran)
}

// collectUntil runs the garbage collector until ran is closed (a
// finalizer or cleanup runs only after a collection found its object).
func collectUntil(ran chan struct{}) {
	for {
		runtime.GC()
		select {
		case <-ran:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// churn passes a value back and forth on c with its twin (first sends
// first), or, with c nil, sleeps 50 µs at a time, forever. Each yields
// between two passes: a pair handing the processor to each other without
// would starve the rest of the program.
//
//go:noinline
func churn(c chan int, first int) {
	if c == nil {
		for {
			time.Sleep(50 * time.Microsecond)
		}
	}
	if first == 1 {
		c <- 1
	}
	for {
		v := <-c
		runtime.Gosched()
		c <- v + 1
	}
}

// growStacks starts goroutines one after another, forever, each of which
// grows its stack (runtime.morestack, newstack, copystack) and exits.
func growStacks() {
	done := make(chan int)
	for {
		go func() { done <- deep(64) }()
		<-done
	}
}

// deep recurses n times through frames of about 300 bytes: 64 of them
// outgrow a goroutine's first stack (8 KiB) once and again.
//
//go:noinline
func deep(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%256])
}
