package dumper

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// parkKind is a way for a goroutine to block, with the wait reason
// runtime.Stack shows for it.
type parkKind int

const (
	parkChanRecv parkKind = iota
	parkChanSend
	parkSelect
	parkMutex
	parkRWRLock
	parkRWLock
	parkWaitGroup
	parkCond
	parkIO
	parkDeep // chan receive 150 frames down
	// Kinds that cannot be released: only for child processes.
	parkSleep
	parkSelectNoCases
	numParkKinds
)

// releasableKinds can all be woken by parkingLot.release.
const releasableKinds = parkSleep

// parkFuncPrefix starts the name of every function that parks.
const parkFuncPrefix = "github.com/stackdump/stackdump/dumper.(*parkingLot).park"

// parkingLot holds goroutines blocked in known states.
type parkingLot struct {
	recvCh, sendCh, selCh chan int
	mu                    sync.Mutex
	rw, rwWriter          sync.RWMutex
	wg                    sync.WaitGroup
	cond                  *sync.Cond
	condDone              bool
	ln                    net.Listener
	conns                 []net.Conn
	senders               int
	parked                atomic.Int64
	done                  sync.WaitGroup
}

// newParkingLot parks n goroutines, spread round robin over the first
// kinds kinds, with at most maxConns of them in IO wait (each holds two
// sockets); the rest of the IO share goes to the other kinds. It returns
// once every goroutine is about to block; call release to wake them all.
func newParkingLot(tb testing.TB, n int, kinds parkKind, maxConns int) *parkingLot {
	tb.Helper()
	p := &parkingLot{recvCh: make(chan int), sendCh: make(chan int), selCh: make(chan int)}
	p.cond = sync.NewCond(&sync.Mutex{})
	p.mu.Lock()
	p.rw.Lock()
	p.rwWriter.RLock()
	p.wg.Add(1)
	var err error
	if p.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		k := parkKind(i) % kinds
		if k == parkIO && len(p.conns) >= 2*maxConns {
			k = parkChanRecv
		}
		p.start(tb, k)
	}
	deadline := time.Now().Add(time.Minute)
	for p.parked.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // from "about to block" to parked
	return p
}

func (p *parkingLot) start(tb testing.TB, k parkKind) {
	p.done.Add(1)
	switch k {
	case parkChanRecv:
		go p.parkChanRecv()
	case parkChanSend:
		p.senders++
		go p.parkChanSend()
	case parkSelect:
		go p.parkSelect()
	case parkMutex:
		go p.parkMutex()
	case parkRWRLock:
		go p.parkRWRLock()
	case parkRWLock:
		go p.parkRWLock()
	case parkWaitGroup:
		go p.parkWaitGroup()
	case parkCond:
		go p.parkCond()
	case parkIO:
		c, err := net.Dial("tcp", p.ln.Addr().String())
		if err != nil {
			tb.Fatal(err)
		}
		s, err := p.ln.Accept()
		if err != nil {
			tb.Fatal(err)
		}
		p.conns = append(p.conns, c, s)
		go p.parkIO(s)
	case parkDeep:
		go p.parkDeep(150)
	case parkSleep:
		go p.parkSleep()
	case parkSelectNoCases:
		go p.parkSelectNoCases()
	}
}

func (p *parkingLot) parkChanRecv() {
	defer p.done.Done()
	p.parked.Add(1)
	<-p.recvCh
}

func (p *parkingLot) parkChanSend() {
	defer p.done.Done()
	p.parked.Add(1)
	p.sendCh <- 1
}

func (p *parkingLot) parkSelect() {
	defer p.done.Done()
	p.parked.Add(1)
	select {
	case <-p.selCh:
	case <-p.recvCh:
	}
}

func (p *parkingLot) parkMutex() {
	defer p.done.Done()
	p.parked.Add(1)
	p.mu.Lock()
	p.mu.Unlock()
}

func (p *parkingLot) parkRWRLock() {
	defer p.done.Done()
	p.parked.Add(1)
	p.rw.RLock()
	p.rw.RUnlock()
}

func (p *parkingLot) parkRWLock() {
	defer p.done.Done()
	p.parked.Add(1)
	p.rwWriter.Lock()
	p.rwWriter.Unlock()
}

func (p *parkingLot) parkWaitGroup() {
	defer p.done.Done()
	p.parked.Add(1)
	p.wg.Wait()
}

func (p *parkingLot) parkCond() {
	defer p.done.Done()
	p.cond.L.Lock()
	p.parked.Add(1)
	for !p.condDone {
		p.cond.Wait()
	}
	p.cond.L.Unlock()
}

func (p *parkingLot) parkIO(c net.Conn) {
	defer p.done.Done()
	p.parked.Add(1)
	b := make([]byte, 1)
	c.Read(b)
}

func (p *parkingLot) parkDeep(n int) {
	if n == 0 {
		defer p.done.Done()
		p.parked.Add(1)
		<-p.recvCh
		return
	}
	p.parkDeep(n - 1)
}

func (p *parkingLot) parkSleep() {
	p.parked.Add(1)
	time.Sleep(time.Hour)
}

func (p *parkingLot) parkSelectNoCases() {
	p.parked.Add(1)
	select {}
}

// release wakes every releasable goroutine and waits for them to exit.
func (p *parkingLot) release() {
	close(p.recvCh)
	close(p.selCh)
	for range p.senders {
		<-p.sendCh
	}
	p.mu.Unlock()
	p.rw.Unlock()
	p.rwWriter.RUnlock()
	p.wg.Done()
	p.cond.L.Lock()
	p.condDone = true
	p.cond.Broadcast()
	p.cond.L.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.ln.Close()
	p.done.Wait()
}

// isParked reports whether r (read from runtime.Stack text) is one of
// the parking lot's goroutines.
func isParked(r *stack.Routine) bool {
	for _, f := range r.Frames() {
		if strings.HasPrefix(f.Func, parkFuncPrefix) {
			return true
		}
	}
	return false
}

// allStacks reads runtime.Stack(buf, true) with the Go traceback reader
// and returns its goroutines by id.
func allStacks(t testing.TB) map[int64]*stack.Routine {
	t.Helper()
	buf := make([]byte, 64<<20)
	text := buf[:runtime.Stack(buf, true)]
	dumps, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{Kind: stack.KindGoTraceback})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("reading runtime.Stack text: %d dumps, %v", len(dumps), err)
	}
	out := make(map[int64]*stack.Routine)
	for _, r := range dumps[0].Routines {
		out[r.ID] = r
	}
	return out
}

// childEnv marks a test binary started by runInChild.
const childEnv = "STACKDUMP_TRACE_CHILD"

// runInChild runs test name in a child process of the test binary and
// fails t with its output if it fails. It reports whether the caller is
// that child, which then runs the test body itself. Tests whose
// goroutines can never be released (time.Sleep(time.Hour), select {})
// run this way so they leak nothing into the parent.
func runInChild(t *testing.T, name string) (isChild bool) {
	if os.Getenv(childEnv) == name {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+name)) {
		t.Fatalf("child process ran no test:\n%s", out)
	}
	return false
}
