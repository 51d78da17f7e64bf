// Command ticktarget is the live target of the pid: tests and benchmarks
// (internal/ptrace, goproc, cmd/stackdump, bench): a Go program that parks
// -goroutines goroutines and measures, with its own ticker, how long it was
// kept from running. The ticker is an OS thread of its own that sleeps
// -tick in nanosleep(2) and reads the clock on each wake: the longest gap
// between two wakes, less -tick, is the longest stall anything caused it —
// a ptrace stop of the whole process, or a stop-the-world pause (the
// ticker's return from its system call waits for the world to restart).
//
// It prints "ready PID" (followed by " pprof ADDR" with -pprof: a
// net/http/pprof server on a loopback port; " gops PORT" with -gops: a gops
// agent on a loopback port, its port file in $GOPS_CONFIG_DIR) once every
// goroutine is parked, and answers each line of its standard input with one line:
//
//	ticks        "ticks N": the ticker's wakes so far
//	gap          "gap NS": the longest stall since the last gap, in ns (then reset)
//	gapcpu       "gapcpu NS": the same less the ticker's wait for a CPU (run_delay), since the last gapcpu
//	stack        "stack N": runtime.Stack of every goroutine (debug=2's text), N bytes, then the text
//	gc           "gc": runtime.GC() ran
//	usr1         "usr1 N": the SIGUSR1 signals received so far
//
// With -churn it also starts and ends OS threads without pause (each a
// goroutine that locks its thread and exits locked), so that threads are
// born while a tracer stops it.
//
// It exits when its standard input closes. Build it with
// `go build -o DIR/ticktarget ./testdata/gen/ticktarget`.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/gops/agent"
)

var (
	ticks   atomic.Int64
	longest atomic.Int64 // ns
	// longestOffCPU is longest less the ticker's wait for a CPU.
	longestOffCPU atomic.Int64
)

func main() {
	n := flag.Int("goroutines", 100, "goroutines parked")
	tick := flag.Duration("tick", 200*time.Microsecond, "the ticker's sleep")
	serve := flag.Bool("pprof", false, "serve net/http/pprof on a loopback port")
	gops := flag.Bool("gops", false, "start a gops agent on a loopback port")
	churn := flag.Bool("churn", false, "start and end OS threads without pause")
	undumpable := flag.Bool("undumpable", false, "make the process undumpable (prctl(PR_SET_DUMPABLE, 0)), as a set-user-id program is")
	flag.Parse()

	if *undumpable {
		const prSetDumpable = 4
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
			fmt.Fprintln(os.Stderr, "prctl:", e)
			os.Exit(1)
		}
	}

	var usr1 atomic.Int64
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	go func() {
		for range sigs {
			usr1.Add(1)
		}
	}()
	if *churn {
		go churnThreads()
	}

	park := make(chan struct{})
	var mu sync.Mutex
	mu.Lock()
	var ready sync.WaitGroup
	ready.Add(*n)
	for i := range *n {
		switch i % 3 {
		case 0:
			go func() { ready.Done(); <-park }()
		case 1:
			go func() { ready.Done(); mu.Lock() }()
		default:
			go sleeper(i%7+1, &ready)
		}
	}
	ready.Wait()
	go ticker(*tick)

	line := fmt.Sprintf("ready %d", os.Getpid())
	if *serve {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go http.Serve(ln, nil)
		line += " pprof " + ln.Addr().String()
	}
	if *gops {
		if err := agent.Listen(agent.Options{Addr: "127.0.0.1:0"}); err != nil {
			fmt.Fprintln(os.Stderr, "gops agent:", err)
			os.Exit(1)
		}
		port, err := os.ReadFile(filepath.Join(os.Getenv("GOPS_CONFIG_DIR"), strconv.Itoa(os.Getpid())))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gops agent's port file:", err)
			os.Exit(1)
		}
		line += " gops " + strings.TrimSpace(string(port))
	}
	// Let the goroutines reach where they park.
	for ticks.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(line)

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "ticks":
			fmt.Println("ticks", ticks.Load())
		case "gap":
			fmt.Println("gap", longest.Swap(0))
		case "gapcpu":
			fmt.Println("gapcpu", longestOffCPU.Swap(0))
		case "usr1":
			fmt.Println("usr1", usr1.Load())
		case "gc":
			runtime.GC()
			fmt.Println("gc")
		case "stack":
			buf := make([]byte, 1<<20)
			for {
				k := runtime.Stack(buf, true)
				if k < len(buf) {
					buf = buf[:k]
					break
				}
				buf = make([]byte, 2*len(buf))
			}
			fmt.Println("stack", len(buf))
			os.Stdout.Write(buf)
		default:
			fmt.Println("unknown command", in.Text())
		}
	}
}

// sleeper parks depth frames deep in a long sleep.
func sleeper(depth int, ready *sync.WaitGroup) {
	if depth > 0 {
		sleeper(depth-1, ready)
		return
	}
	ready.Done()
	time.Sleep(24 * time.Hour)
}

// ticker sleeps d at a time on a thread of its own and records the
// longest time it was kept from waking, beyond d; and the same less the
// time the kernel kept it waiting for a CPU meanwhile (run_delay of
// /proc/thread-self/schedstat): a stop (ptrace, stop-the-world) is kept,
// a busy machine's scheduling delay is not.
func ticker(d time.Duration) {
	runtime.LockOSThread()
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	sched, _ := os.Open("/proc/thread-self/schedstat")
	buf := make([]byte, 128)
	runDelay := func() int64 {
		if sched == nil {
			return 0
		}
		n, _ := sched.ReadAt(buf, 0)
		f := strings.Fields(string(buf[:n]))
		if len(f) < 2 {
			return 0
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		return v
	}
	last, lastDelay := time.Now(), runDelay()
	for {
		syscall.Nanosleep(&ts, nil)
		now, delay := time.Now(), runDelay()
		gap := now.Sub(last) - d
		if gap > time.Duration(longest.Load()) {
			longest.Store(int64(gap))
		}
		if g := gap - time.Duration(delay-lastDelay); g > time.Duration(longestOffCPU.Load()) {
			longestOffCPU.Store(int64(g))
		}
		last, lastDelay = now, delay
		ticks.Add(1)
	}
}

// churnThreads starts OS threads and ends them, one after another: a
// goroutine that exits with its thread locked ends that thread.
func churnThreads() {
	for {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
	}
}
