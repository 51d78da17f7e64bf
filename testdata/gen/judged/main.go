// Command judged runs the sick and busy Go processes of the judged set
// (internal/judged): each mode builds one shape whose truth is written
// down, from this code, in testdata/judged/go-MODE.json.
//
//	judged leak     a healthy pool of 300 workers fed every millisecond,
//	                beside a leak: each "next" runs 100 more requests whose
//	                handler gives up and returns, leaving its fetcher
//	                blocked forever sending its result (100, 200, 300)
//	judged chan50k  50,000 goroutines parked on one channel that nothing
//	                sends on or closes
//	judged mutex40  a goroutine holds a store's mutex and sleeps; 40
//	                goroutines wait to lock it
//	judged abba     two goroutines lock two accounts in opposite orders and
//	                deadlock; 20 others keep working, so the runtime sees
//	                no deadlock
//	judged spin     one goroutine computes without pause; the rest idle
//	judged pool600  600 workers kept busy by a dispatcher: short jobs, one
//	                after the other
//	judged demo     the demo service of package internal/demo (a quote
//	                leak of about 100 goroutines a second, readers queued
//	                on a mutex its refresher holds, an idle pool, idle
//	                keep-alive connections)
//	judged rwmutex  a goroutine holds a table's RWMutex for writing and
//	                sleeps; 30 readers and 5 writers wait for it
//	judged selectleak
//	                each "next" runs 100 more requests whose handler
//	                starts a watcher selecting on a context that is never
//	                done and a channel nothing sends on, and returns
//	                (100, 200, 300)
//	judged wgpile   200 goroutines wait on a WaitGroup whose only worker
//	                returned without calling Done
//	judged connleak an HTTP server without timeouts, and a client that
//	                dials it and never sends a request nor closes (100
//	                connections at start, 100 more per "next"): the
//	                server's goroutine of each waits for a request for
//	                ever. Beside it an echo service whose clients (100 at
//	                start, 100 more per "next" too) send a line every
//	                500ms and read it back: network and timer waiters
//	                that grow just as much, and wake. The service
//	                rebuilds a status page every 10ms, so its garbage is
//	                collected about once a second, as any service's is
//	                (the runtime counts a wait from the first collection
//	                that finds the goroutine blocked)
//
// Every mode also serves net/http/pprof on a loopback port, with a
// ticker loop and the server's accept loop, as a service would. It
// prints "listening ADDR" once the shape is in place, answers each "next"
// line on its standard input with "phase N" once it took effect, and
// exits when its standard input closes. The tests build it with
// `go build -o DIR/judged ./testdata/gen/judged` and capture
// /debug/pprof/goroutine?debug=2 between commands.
package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stackdump/stackdump/internal/demo"
)

var sink uint64

// work computes for a while without blocking.
//
//go:noinline
func work(x uint64, n int) uint64 {
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// --- leak: a pool beside a leak of the same size at the end.

type job struct{ n int }

type pool struct {
	jobs chan job
	done uint64
	mu   sync.Mutex
}

//go:noinline
func (p *pool) work() {
	for j := range p.jobs {
		x := work(uint64(j.n), 2000)
		p.mu.Lock()
		p.done += x & 1
		p.mu.Unlock()
	}
}

//go:noinline
func (p *pool) feed() {
	t := time.NewTicker(time.Millisecond)
	for n := 0; ; n++ {
		<-t.C
		for range 3 {
			p.jobs <- job{n}
		}
	}
}

// fetchQuote computes a quote and sends it to whoever asked; when the
// asker gave up, nothing ever receives.
//
//go:noinline
func fetchQuote(result chan<- uint64, n int) {
	result <- work(uint64(n), 100)
}

// handleQuote asks for a quote and gives up at once (its deadline has
// passed), returning without receiving: the fetcher leaks.
//
//go:noinline
func handleQuote(n int, started *sync.WaitGroup) {
	result := make(chan uint64)
	go fetchQuote(result, n)
	started.Done()
}

func leakRequests(n int) {
	var started sync.WaitGroup
	started.Add(n)
	for i := range n {
		go handleQuote(i, &started)
	}
	started.Wait()
	// Wait for the fetchers to block: every one computes briefly first.
	time.Sleep(50 * time.Millisecond)
}

func modeLeak() func(phase int) {
	p := &pool{jobs: make(chan job)}
	for range 300 {
		go p.work()
	}
	go p.feed()
	leakRequests(100)
	return func(int) { leakRequests(100) }
}

// --- chan50k: 50,000 goroutines parked on one channel.

// awaitShutdown waits for a shutdown that never comes: nothing sends on
// or closes done.
//
//go:noinline
func awaitShutdown(done <-chan struct{}, started *sync.WaitGroup, id int) {
	started.Done()
	<-done
	sink += uint64(id)
}

func modeChan50k() func(int) {
	done := make(chan struct{})
	var started sync.WaitGroup
	started.Add(50_000)
	for i := range 50_000 {
		go awaitShutdown(done, &started, i)
	}
	started.Wait()
	return nil
}

// --- mutex40: a mutex held while its holder sleeps, 40 waiters.

type store struct {
	mu   sync.Mutex
	data map[string]int
}

// compact holds the store's lock for an hour.
//
//go:noinline
func (s *store) compact(locked chan<- struct{}) {
	s.mu.Lock()
	locked <- struct{}{}
	time.Sleep(time.Hour)
	s.data = map[string]int{}
	s.mu.Unlock()
}

//go:noinline
func (s *store) get(key string, started *sync.WaitGroup) int {
	started.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data[key]
}

func modeMutex40() func(int) {
	s := &store{data: map[string]int{}}
	locked := make(chan struct{})
	go s.compact(locked)
	<-locked
	var started sync.WaitGroup
	started.Add(40)
	for i := range 40 {
		go s.get(fmt.Sprint("key", i), &started)
	}
	started.Wait()
	waitForState(40, "sync.Mutex.Lock")
	return nil
}

// --- abba: two goroutines deadlocked on two mutexes, others running.

type account struct {
	mu      sync.Mutex
	balance int
}

// transfer locks from, then to: run both ways at once, each holds the
// lock the other waits for.
//
//go:noinline
func transfer(from, to *account, amount int, both *sync.WaitGroup) {
	from.mu.Lock()
	both.Done()
	both.Wait()
	to.mu.Lock()
	from.balance -= amount
	to.balance += amount
	to.mu.Unlock()
	from.mu.Unlock()
}

//go:noinline
func busyLoop(id int) {
	for {
		sink += work(uint64(id), 50_000)
		time.Sleep(time.Millisecond)
	}
}

func modeABBA() func(int) {
	a, b := &account{balance: 100}, &account{balance: 100}
	var both sync.WaitGroup
	both.Add(2)
	go transfer(a, b, 10, &both)
	go transfer(b, a, 20, &both)
	for i := range 20 {
		go busyLoop(i)
	}
	waitForState(2, "sync.Mutex.Lock")
	return nil
}

// --- spin: one goroutine on the CPU without pause.

//go:noinline
func spin() {
	x := uint64(1)
	for {
		x = work(x, 1_000_000)
		sink = x
	}
}

func modeSpin() func(int) {
	go spin()
	return nil
}

// --- pool600: a busy pool of 600 workers.

//go:noinline
func (p *pool) handle() {
	for j := range p.jobs {
		sink += work(uint64(j.n), 5000)
		time.Sleep(200 * time.Microsecond)
	}
}

//go:noinline
func (p *pool) dispatch() {
	for n := 0; ; n++ {
		p.jobs <- job{n}
	}
}

func modePool600() func(int) {
	p := &pool{jobs: make(chan job)}
	for range 600 {
		go p.handle()
	}
	for range 2 {
		go p.dispatch()
	}
	return nil
}

// --- demo: the demo service.

func modeDemo() func(int) {
	if _, err := demo.Start(demo.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	time.Sleep(500 * time.Millisecond) // requests under way, readers queued
	return nil
}

// --- rwmutex: a table's RWMutex held for writing, readers and writers
// waiting.

type table struct {
	mu   sync.RWMutex
	rows map[string]int
}

// rebuild holds the table's write lock for an hour.
//
//go:noinline
func (t *table) rebuild(locked chan<- struct{}) {
	t.mu.Lock()
	locked <- struct{}{}
	time.Sleep(time.Hour)
	t.rows = map[string]int{}
	t.mu.Unlock()
}

//go:noinline
func (t *table) lookup(key string, started *sync.WaitGroup) int {
	started.Done()
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.rows[key]
}

//go:noinline
func (t *table) insert(key string, started *sync.WaitGroup) {
	started.Done()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows[key]++
}

func modeRWMutex() func(int) {
	t := &table{rows: map[string]int{}}
	locked := make(chan struct{})
	go t.rebuild(locked)
	<-locked
	var started sync.WaitGroup
	started.Add(35)
	for i := range 30 {
		go t.lookup(fmt.Sprint("key", i), &started)
	}
	for i := range 5 {
		go t.insert(fmt.Sprint("key", i), &started)
	}
	started.Wait()
	waitForState(30, "sync.RWMutex.RLock")
	waitForState(5, "sync.Mutex.Lock") // writers wait for the RWMutex's own mutex first
	return nil
}

// --- selectleak: watchers left selecting by handlers that returned.

// watchUpdates waits for an update or the end of its request's context:
// the context is never done and nothing sends an update.
//
//go:noinline
func watchUpdates(ctx context.Context, updates <-chan string) {
	select {
	case <-ctx.Done():
	case u := <-updates:
		sink += uint64(len(u))
	}
}

// handleWatch starts a watcher for its request and returns without
// cancelling it.
//
//go:noinline
func handleWatch(started *sync.WaitGroup) {
	go watchUpdates(context.Background(), make(chan string))
	started.Done()
}

func watchRequests(n int) {
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		go handleWatch(&started)
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond)
}

func modeSelectLeak() func(int) {
	watchRequests(100)
	return func(int) { watchRequests(100) }
}

// --- wgpile: waiters on a WaitGroup whose worker never calls Done.

type batch struct {
	wg      sync.WaitGroup
	results []int
}

// await waits for the batch: it never completes.
//
//go:noinline
func (b *batch) await(id int, started *sync.WaitGroup) {
	started.Done()
	b.wg.Wait()
	sink += uint64(id + len(b.results))
}

// run is the batch's worker: it returns early, without Done.
//
//go:noinline
func (b *batch) run() {
	if len(b.results) == 0 {
		return // the bug: b.wg.Done() is never called
	}
	b.wg.Done()
}

func modeWGPile() func(int) {
	b := &batch{}
	b.wg.Add(1)
	go b.run()
	var started sync.WaitGroup
	started.Add(200)
	for i := range 200 {
		go b.await(i, &started)
	}
	started.Wait()
	waitForState(200, "sync.WaitGroup.Wait")
	return nil
}

// --- connleak: a server's connections leak beside connections that grow
// and wake.

// leakClient holds the connections it dialled: it never sends on them nor
// closes them (the bug), and the server has no read or idle timeout.
type leakClient struct {
	addr  string
	conns []net.Conn
}

func (c *leakClient) dial(n int) {
	for range n {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c.conns = append(c.conns, conn)
	}
}

// echoServe echoes each line of one connection back.
//
//go:noinline
func echoServe(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := conn.Write([]byte(line)); err != nil {
			return
		}
	}
}

// chatter sends a line every 500ms and reads it back.
//
//go:noinline
func chatter(conn net.Conn, ready *sync.WaitGroup) {
	r := bufio.NewReader(conn)
	for i := 0; ; i++ {
		if _, err := fmt.Fprintf(conn, "ping %d\n", i); err != nil {
			return
		}
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
		if i == 0 {
			ready.Done()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func chatters(addr string, n int) {
	var ready sync.WaitGroup
	ready.Add(n)
	for range n {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go chatter(conn, &ready)
	}
	ready.Wait()
}

// status is the service's status page.
var status []byte

// statusPage rebuilds the service's status page every 10ms: the old one
// is garbage.
//
//go:noinline
func statusPage() {
	t := time.NewTicker(10 * time.Millisecond)
	for n := 0; ; n++ {
		<-t.C
		page := make([]byte, 64<<10)
		page[n%len(page)] = byte(n)
		status = page
	}
}

func listen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return ln
}

func modeConnLeak() func(int) {
	go statusPage()
	web := listen()
	var accepted atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") }),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				accepted.Add(1)
			}
		},
	}
	go srv.Serve(web)
	echo := listen()
	go func() {
		for {
			conn, err := echo.Accept()
			if err != nil {
				return
			}
			go echoServe(conn)
		}
	}()
	client := &leakClient{addr: web.Addr().String()}
	phase := func(int) {
		client.dial(100)
		chatters(echo.Addr().String(), 100)
		for accepted.Load() < int64(len(client.conns)) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // each connection's goroutine reading
	}
	phase(0)
	return phase
}

// waitForState waits until n goroutines are in state, as the runtime's
// own traceback says.
func waitForState(n int, state string) {
	buf := make([]byte, 1<<20)
	for range 1000 {
		got := 0
		text := string(buf[:runtime.Stack(buf, true)])
		for i := 0; ; {
			j := indexFrom(text, "["+state+"]", i)
			if j < 0 {
				break
			}
			got++
			i = j + 1
		}
		if got >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "judged: %d goroutines never reached %s\n", n, state)
	os.Exit(1)
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// tick is the service's housekeeping loop: a ticker, as most services have.
//
//go:noinline
func tick() {
	t := time.NewTicker(100 * time.Millisecond)
	for range t.C {
		sink++
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: judged leak|chan50k|mutex40|abba|spin|pool600|demo|rwmutex|selectleak|wgpile|connleak")
		os.Exit(2)
	}
	modes := map[string]func() func(int){
		"leak": modeLeak, "chan50k": modeChan50k, "mutex40": modeMutex40,
		"abba": modeABBA, "spin": modeSpin, "pool600": modePool600,
		"demo": modeDemo, "rwmutex": modeRWMutex, "selectleak": modeSelectLeak, "wgpile": modeWGPile,
		"connleak": modeConnLeak,
	}
	mode := modes[os.Args[1]]
	if mode == nil {
		fmt.Fprintf(os.Stderr, "judged: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(ln, nil)
	go tick()
	next := mode()
	fmt.Println("listening", ln.Addr())
	in := bufio.NewScanner(os.Stdin)
	for phase := 1; in.Scan(); phase++ {
		if in.Text() != "next" {
			fmt.Fprintf(os.Stderr, "judged: unknown command %q\n", in.Text())
			os.Exit(2)
		}
		if next != nil {
			next(phase)
		}
		fmt.Println("phase", phase)
	}
}
