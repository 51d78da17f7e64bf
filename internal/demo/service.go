// Package demo is a small service with the goroutines an on-call engineer
// meets in real dumps, for `make demo` and end-to-end tests. It serves
// HTTP on 127.0.0.1 and, while it runs, holds:
//
//   - idle keep-alive connections: server goroutines in net/http's
//     (*conn).serve and client readLoop/writeLoop goroutines, in IO wait;
//   - a worker pool idle on its job channel (chan receive), labelled
//     component=worker-pool;
//   - a leak that grows by LeakRate goroutines a second: each /quote
//     request starts fetchQuote to send its result on an unbuffered
//     channel, gives up after a millisecond and returns, and fetchQuote
//     stays blocked in chan send forever (labelled handler=quote);
//   - lock contention: /price requests queue on a sync.Mutex that a
//     refresher holds across a slow upstream call;
//   - a goroutine waiting on a sync.WaitGroup for a batch of tasks;
//   - sleepers in time.Sleep.
//
// Its stackdump endpoint (dumper.Handler) is mounted at [EndpointPath],
// net/http/pprof under /debug/pprof/. Close stops everything, the leaked
// goroutines included, and waits for them.
package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// EndpointPath is where the service serves its goroutine dumps.
const EndpointPath = "/debug/stackdump"

// Options size the service. Zero fields take the defaults.
type Options struct {
	// Workers is the size of the idle worker pool (default 64).
	Workers int
	// KeepAlive is how many idle keep-alive client connections to hold
	// open (default 8).
	KeepAlive int
	// LeakRate is how many goroutines leak per second (default 100).
	LeakRate int
	// PriceClients is how many clients keep requesting /price, queueing on
	// the price cache's mutex (default 12).
	PriceClients int
	// BatchTasks is the size of the batch a goroutine waits for on a
	// WaitGroup (default 6).
	BatchTasks int
	// Sleepers is how many goroutines sleep in a loop (default 4).
	Sleepers int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Workers, 64)
	def(&o.KeepAlive, 8)
	def(&o.LeakRate, 100)
	def(&o.PriceClients, 12)
	def(&o.BatchTasks, 6)
	def(&o.Sleepers, 4)
	return o
}

// Service is the running demo service.
type Service struct {
	// URL is the service's base URL, http://127.0.0.1:PORT.
	URL string

	opts    Options
	srv     *http.Server
	ln      net.Listener
	done    chan struct{} // closed by Close
	wg      sync.WaitGroup
	pool    *workerPool
	cache   *priceCache
	leaks   leakLedger
	clients []*http.Client // idle keep-alive clients
	// priceTransport is shared by the /price clients.
	priceTransport *http.Transport
}

// Start starts the service on a free port of 127.0.0.1 and the load that
// shapes its goroutines. The goroutines are in place (the leak keeps
// growing) when Start returns.
func Start(opts Options) (*Service, error) {
	opts = opts.withDefaults()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: listen: %w", err)
	}
	s := &Service{
		URL:   "http://" + ln.Addr().String(),
		opts:  opts,
		ln:    ln,
		done:  make(chan struct{}),
		cache: newPriceCache(),
	}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	// Every goroutine is started by a go statement of its own (and counted
	// in s.wg by it), so that the dump's creators name real call sites.
	s.wg.Add(1)
	go s.serve()
	s.pool = s.startWorkerPool(opts.Workers)
	s.wg.Add(1)
	go s.cache.refresh(s)
	s.wg.Add(1)
	go s.awaitBatch()
	for range opts.Sleepers {
		s.wg.Add(1)
		go s.flushMetrics()
	}
	if err := s.openKeepAlive(opts.KeepAlive); err != nil {
		s.Close()
		return nil, err
	}
	s.priceTransport = &http.Transport{MaxIdleConnsPerHost: opts.PriceClients}
	for range opts.PriceClients {
		s.wg.Add(1)
		go s.priceClient()
	}
	s.wg.Add(1)
	go s.quoteLoad()
	return s, nil
}

func (s *Service) serve() {
	defer s.wg.Done()
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		panic(fmt.Sprintf("demo: serve: %v", err))
	}
}

// Leaked returns how many goroutines have leaked so far.
func (s *Service) Leaked() int { return s.leaks.len() }

// Close stops the load, the server and every goroutine of the service,
// releasing the leaked ones, and waits for them.
func (s *Service) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	close(s.done)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	for _, c := range s.clients {
		c.CloseIdleConnections()
	}
	if s.priceTransport != nil {
		s.priceTransport.CloseIdleConnections()
	}
	s.leaks.release()
	s.wg.Wait()
	return err
}

func (s *Service) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// routes is the service's HTTP API and its dump endpoint.
func (s *Service) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /quote", s.handleQuote)
	mux.HandleFunc("GET /price", s.handlePrice)
	mountDumps(mux)
	return mux
}
