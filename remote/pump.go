package remote

import (
	"io"
	"sync"
)

// pump reads src ahead of its consumer on its own goroutine, up to limit
// bytes buffered, so the TCP receive window stays open while the consumer
// parses: a dump over a high-latency link then costs about one round trip
// rather than one per read.
type pump struct {
	src   io.ReadCloser
	limit int

	mu     sync.Mutex
	cond   *sync.Cond
	chunks [][]byte
	queued int
	err    error // sticky error from src (io.EOF at the end)
	closed bool  // consumer closed
	done   chan struct{}
	cur    []byte
}

const pumpChunk = 256 << 10

// newPump starts pumping src; limit is the most bytes held ahead.
func newPump(src io.ReadCloser, limit int) *pump {
	p := &pump{src: src, limit: max(limit, pumpChunk), done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go p.run()
	return p
}

func (p *pump) run() {
	defer close(p.done)
	var buf []byte
	for {
		p.mu.Lock()
		for p.queued >= p.limit && !p.closed {
			p.cond.Wait()
		}
		if p.closed {
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()

		if len(buf) == cap(buf) {
			buf = make([]byte, 0, pumpChunk)
		}
		// Hand over whatever arrived: a stalled sender must not hold back
		// bytes already received. Published chunks are never rewritten.
		n, err := p.src.Read(buf[len(buf):cap(buf)])
		chunk := buf[len(buf) : len(buf)+n : len(buf)+n]
		buf = buf[:len(buf)+n]
		p.mu.Lock()
		if n > 0 {
			p.chunks = append(p.chunks, chunk)
			p.queued += n
		}
		if err != nil {
			p.err = err
		}
		p.cond.Broadcast()
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Read returns buffered bytes, waiting for the pump when none are ready.
func (p *pump) Read(b []byte) (int, error) {
	if len(p.cur) == 0 {
		p.mu.Lock()
		for len(p.chunks) == 0 && p.err == nil && !p.closed {
			p.cond.Wait()
		}
		if len(p.chunks) == 0 {
			err := p.err
			if p.closed {
				err = io.ErrClosedPipe
			}
			p.mu.Unlock()
			return 0, err
		}
		p.cur = p.chunks[0]
		p.chunks[0] = nil
		p.chunks = p.chunks[1:]
		p.queued -= len(p.cur)
		p.cond.Broadcast()
		p.mu.Unlock()
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// drain reads and drops what is left, up to limit bytes, until the end of
// src or an error.
func (p *pump) drain(limit int64) {
	var buf [32 << 10]byte
	for limit > 0 {
		n, err := p.Read(buf[:min(int64(len(buf)), limit)])
		limit -= int64(n)
		if err != nil {
			return
		}
	}
}

// Close stops the pump and closes src; it waits for the pump goroutine.
func (p *pump) Close() error {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	err := p.src.Close() // unblocks a pending src.Read
	<-p.done
	return err
}
