package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// progress repaints one status line on a terminal while captures run:
// bytes received and routines read, per target for a few targets, summed
// for many. It is silent when the writer is not a terminal or when quiet.
type progress struct {
	w    io.Writer
	jobs []*captureJob
	quit chan struct{}
	done chan struct{}
}

func newProgress(w io.Writer, jobs []*captureJob, quiet bool) *progress {
	p := &progress{w: w, jobs: jobs, quit: make(chan struct{}), done: make(chan struct{})}
	if quiet || !isTerminal(w) {
		close(p.done)
		return p
	}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			fmt.Fprint(p.w, "\r\033[K")
			return
		case <-t.C:
			fmt.Fprint(p.w, "\r\033[K"+p.line())
		}
	}
}

func (p *progress) line() string {
	if len(p.jobs) <= 3 {
		parts := make([]string, len(p.jobs))
		for i, j := range p.jobs {
			parts[i] = fmt.Sprintf("%s %s, %d routines", j.target, humanBytes(j.received.Load()), j.routines.Load())
		}
		return strings.Join(parts, " · ")
	}
	var bytes, routines int64
	done := 0
	for _, j := range p.jobs {
		bytes += j.received.Load()
		routines += j.routines.Load()
		if j.done.Load() {
			done++
		}
	}
	return fmt.Sprintf("%d/%d targets · %s · %d routines", done, len(p.jobs), humanBytes(bytes), routines)
}

// stop ends the display and clears its line.
func (p *progress) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.quit)
	<-p.done
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// signalContext is ctx cancelled on Ctrl-C or SIGTERM, for a command that
// winds down by itself on one (main then exits 130 or 143, see
// interrupt.go).
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if windDown(ctx) {
		return context.WithCancel(ctx)
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
