// Command trace records the execution-trace fixtures of testdata/trace: a
// process with goroutines parked in known states, its runtime.Stack(all)
// text (the reference the trace reader is compared with) and a short
// runtime/trace window over it. See README.md for the commands.
package main

import (
	"bytes"
	"flag"
	"log"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	out := flag.String("o", ".", "directory to write NAME.trace and NAME.txt into")
	name := flag.String("name", "snapshot", "base name of the output files")
	window := flag.Duration("window", time.Millisecond, "how long to trace (the tracer starts a new generation every second)")
	flag.Parse()
	if err := run(*out, *name, *window); err != nil {
		log.Fatal(err)
	}
}

// parked holds what keeps the goroutines blocked.
type parked struct {
	recvCh, sendCh, selCh, nilCh chan int
	mu                           sync.Mutex
	rw                           sync.RWMutex
	rwWriter                     sync.RWMutex
	wg                           sync.WaitGroup
	cond                         *sync.Cond
	conns                        []net.Conn
	wake                         chan struct{}
	stop                         atomic.Bool
}

func run(dir, name string, window time.Duration) error {
	p := &parked{recvCh: make(chan int), sendCh: make(chan int), selCh: make(chan int), wake: make(chan struct{})}
	p.cond = sync.NewCond(&sync.Mutex{})
	p.mu.Lock()
	p.rw.Lock()        // readers and writers queue behind it
	p.rwWriter.RLock() // a writer waits for this reader
	p.wg.Add(1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()

	for range 2 {
		go chanRecv(p)
		go chanSend(p)
		go selectTwo(p)
		go selectNoCases()
		go nilChanRecv(p)
		go mutexLock(p)
		go rwRLock(p)
		go rwLock(p)
		go waitGroup(p)
		go condWait(p)
		go sleep()
		go deep(150, p)
		go woken(p)
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		s, err := ln.Accept()
		if err != nil {
			return err
		}
		p.conns = append(p.conns, c, s)
		go ioWait(s)
	}
	go spin(p)
	time.Sleep(50 * time.Millisecond) // let every goroutine park

	buf := make([]byte, 1<<20)
	text := buf[:runtime.Stack(buf, true)]

	var tr bytes.Buffer
	if err := trace.Start(&tr); err != nil {
		return err
	}
	go chanRecv(p) // created inside the window: has a creator
	time.Sleep(window)
	close(p.wake) // woken inside the window: runnable with no current stack
	trace.Stop()
	p.stop.Store(true)

	if err := os.WriteFile(filepath.Join(dir, name+".txt"), text, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".trace"), tr.Bytes(), 0o644)
}

func chanRecv(p *parked)    { <-p.recvCh }
func chanSend(p *parked)    { p.sendCh <- 1 }
func nilChanRecv(p *parked) { <-p.nilCh }
func selectNoCases()        { select {} }
func sleep()                { time.Sleep(time.Hour) }
func mutexLock(p *parked)   { p.mu.Lock() }
func rwRLock(p *parked)     { p.rw.RLock() }
func rwLock(p *parked)      { p.rwWriter.Lock() }
func waitGroup(p *parked)   { p.wg.Wait() }

func selectTwo(p *parked) {
	select {
	case <-p.selCh:
	case <-p.wake:
		<-p.selCh
	}
}

func condWait(p *parked) {
	p.cond.L.Lock()
	p.cond.Wait()
}

func ioWait(c net.Conn) {
	b := make([]byte, 1)
	c.Read(b)
}

// deep parks n frames down, past the tracer's 128-frame limit.
func deep(n int, p *parked) {
	if n == 0 {
		<-p.recvCh
		return
	}
	deep(n-1, p)
}

// woken waits for the window, yields a few times and parks again: it
// blocks inside the window, or is still runnable when it ends.
func woken(p *parked) {
	<-p.wake
	for i := 0; i < 20 && !p.stop.Load(); i++ {
		runtime.Gosched()
	}
	<-p.recvCh
}

// spin keeps a CPU busy: it is running or preempted in the window.
func spin(p *parked) {
	n := 0
	for !p.stop.Load() {
		n++
	}
}
