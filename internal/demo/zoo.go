package demo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// workerPool is a fixed pool of workers idle on their job channel most
// of the time: the shape a leak heuristic must not flag.
type workerPool struct {
	jobs chan func()
	done atomic.Int64 // jobs done
}

func (s *Service) startWorkerPool(n int) *workerPool {
	p := &workerPool{jobs: make(chan func())}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("component", "worker-pool"))
	for range n {
		s.wg.Add(1)
		go p.work(ctx, s)
	}
	s.wg.Add(1)
	go p.dispatch(s)
	return p
}

func (p *workerPool) work(ctx context.Context, s *Service) {
	defer s.wg.Done()
	pprof.SetGoroutineLabels(ctx)
	for job := range p.jobs {
		job()
	}
}

// dispatch hands the pool a small job every 50ms, and closes the job
// channel when the service stops; it is the channel's only sender.
func (p *workerPool) dispatch(s *Service) {
	defer s.wg.Done()
	defer close(p.jobs)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
			select {
			case p.jobs <- func() { p.done.Add(1) }:
			case <-s.done:
				return
			}
		}
	}
}

// quote is what the quote backend answers.
type quote struct {
	Symbol string
	Price  float64
}

// handleQuote has the leak: it starts fetchQuote with an unbuffered
// channel, gives up after a millisecond, and nobody ever receives what
// fetchQuote sends.
func (s *Service) handleQuote(w http.ResponseWriter, r *http.Request) {
	pprof.SetGoroutineLabels(pprof.WithLabels(r.Context(), pprof.Labels("handler", "quote")))
	defer pprof.SetGoroutineLabels(r.Context())
	ch := make(chan quote) // the bug: unbuffered, and abandoned on timeout
	s.wg.Add(1)
	go s.fetchQuote(ch)
	select {
	case q := <-ch:
		fmt.Fprintf(w, "%s %.2f\n", q.Symbol, q.Price)
	case <-time.After(time.Millisecond):
		s.leaks.add(ch)
		http.Error(w, "quote backend timed out", http.StatusGatewayTimeout)
	}
}

// fetchQuote asks a slow backend, then blocks forever delivering the
// answer to a handler that has gone.
func (s *Service) fetchQuote(ch chan<- quote) {
	defer s.wg.Done()
	time.Sleep(5 * time.Millisecond)
	ch <- quote{Symbol: "ACME", Price: 42.17}
}

// leakLedger remembers the abandoned channels so that Close can release
// the leaked goroutines; the service itself never reads them.
type leakLedger struct {
	mu    sync.Mutex
	chans []chan quote
}

func (l *leakLedger) add(ch chan quote) {
	l.mu.Lock()
	l.chans = append(l.chans, ch)
	l.mu.Unlock()
}

func (l *leakLedger) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.chans)
}

// release receives from every abandoned channel, which lets each leaked
// goroutine finish.
func (l *leakLedger) release() {
	l.mu.Lock()
	chans := l.chans
	l.chans = nil
	l.mu.Unlock()
	for _, ch := range chans {
		<-ch
	}
}

// quoteLoad requests /quote LeakRate times a second, each on a new
// connection, so each leaked goroutine's parent is a request goroutine
// that has exited.
func (s *Service) quoteLoad() {
	defer s.wg.Done()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	tick := time.NewTicker(time.Second / time.Duration(s.opts.LeakRate))
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
			get(client, s.URL+"/quote")
		}
	}
}

// priceCache holds prices behind one mutex, which its refresher holds
// while it waits for a slow upstream: every reader queues behind it.
type priceCache struct {
	mu     sync.Mutex
	prices map[string]float64
}

func newPriceCache() *priceCache {
	return &priceCache{prices: map[string]float64{"ACME": 42.17}}
}

// Get returns a symbol's price.
func (c *priceCache) Get(symbol string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.prices[symbol]
}

// refresh reloads the prices with the lock held across a slow upstream
// call: readers queue behind it for as long as the call takes.
func (c *priceCache) refresh(s *Service) {
	defer s.wg.Done()
	for {
		c.mu.Lock()
		stop := slowUpstream(s.done)
		c.prices["ACME"] += 0.01
		c.mu.Unlock()
		if stop {
			return
		}
	}
}

// upstreamTimeout is how long the price upstream takes to time out; the
// cache's lock is free only for a moment between two of its calls, so any
// capture of a demo shorter than this sees the readers queued.
const upstreamTimeout = 30 * time.Second

// slowUpstream stands for a call that hangs until it times out (or the
// service stops); it reports whether the service stopped.
func slowUpstream(done <-chan struct{}) bool {
	t := time.NewTimer(upstreamTimeout)
	defer t.Stop()
	select {
	case <-t.C:
		return false
	case <-done:
		return true
	}
}

func (s *Service) handlePrice(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "ACME %.2f\n", s.cache.Get("ACME"))
}

// priceClient keeps requesting /price over a keep-alive connection.
func (s *Service) priceClient() {
	defer s.wg.Done()
	client := &http.Client{Transport: s.priceTransport, Timeout: 2 * upstreamTimeout}
	for !s.stopped() {
		get(client, s.URL+"/price")
	}
}

// awaitBatch waits on a WaitGroup for tasks that wait for the service to
// stop.
func (s *Service) awaitBatch() {
	defer s.wg.Done()
	var batch sync.WaitGroup
	for range s.opts.BatchTasks {
		batch.Add(1)
		go s.batchTask(&batch)
	}
	batch.Wait()
}

func (s *Service) batchTask(batch *sync.WaitGroup) {
	defer batch.Done()
	<-s.done
}

// flushMetrics sleeps in a loop, as a periodic flusher does.
func (s *Service) flushMetrics() {
	defer s.wg.Done()
	for !s.stopped() {
		time.Sleep(50 * time.Millisecond)
	}
}

// openKeepAlive makes n clients, each with one idle keep-alive connection
// to the service.
func (s *Service) openKeepAlive(n int) error {
	for range n {
		c := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
		if err := get(c, s.URL+"/healthz"); err != nil {
			return fmt.Errorf("demo: keep-alive client: %w", err)
		}
		s.clients = append(s.clients, c)
	}
	return nil
}

// get fetches url and reads the body to its end, which returns a
// keep-alive connection to its pool.
func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
