package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stackdump/stackdump/internal/words"
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
			parts[i] = fmt.Sprintf("%s %s, %s", j.target, humanBytes(j.received.Load()), words.Count(j.routines.Load(), "routine"))
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
	return fmt.Sprintf("%d/%s · %s · %s", done, words.Count(len(p.jobs), "target"), humanBytes(bytes), words.Count(routines, "routine"))
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

// Progress of reading an input file (convert, analyze, report, diff,
// query): after progressDelay, a line on standard error repainted every
// progressEvery, with the bytes read (of the file's size when known), the
// goroutines or threads read and the read rate. Only on a terminal, and
// never with -q.
const (
	progressDelay = 500 * time.Millisecond
	progressEvery = 200 * time.Millisecond
)

// wantProgress reports whether a progress line may be drawn on w.
func wantProgress(w io.Writer, quiet bool) bool { return !quiet && isTerminal(w) }

// readProgress counts what is read of one input and draws the line.
type readProgress struct {
	w        io.Writer
	name     string
	size     int64 // the file's size; 0 when unknown (standard input, a pipe)
	bytes    atomic.Int64
	routines atomic.Int64 // formats.ReadOptions.Progress
	start    time.Time
	quit     chan struct{}
	done     chan struct{}
}

// newReadProgress starts the display of reading name (size bytes, 0 when
// unknown) on w, unless wantProgress says no; the counters count either way.
func newReadProgress(w io.Writer, name string, size int64, quiet bool) *readProgress {
	p := &readProgress{w: w, name: name, size: size, start: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	if !wantProgress(w, quiet) {
		close(p.done)
		return p
	}
	go p.run()
	return p
}

func (p *readProgress) run() {
	defer close(p.done)
	select {
	case <-p.quit:
		return // done before anyone waited: no line at all
	case <-time.After(progressDelay):
	}
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		fmt.Fprint(p.w, "\r\033[K"+p.line(time.Since(p.start)))
		select {
		case <-p.quit:
			fmt.Fprint(p.w, "\r\033[K")
			return
		case <-t.C:
		}
	}
}

// line is the progress line after elapsed: "reading big.txt: 12.0 MiB of
// 48.0 MiB (25%) · 150000 goroutines · 40.0 MiB/s".
func (p *readProgress) line(elapsed time.Duration) string {
	n := p.bytes.Load()
	read := humanBytes(n)
	if p.size > 0 {
		read += fmt.Sprintf(" of %s (%d%%)", humanBytes(p.size), min(100, n*100/p.size))
	}
	parts := []string{"reading " + p.name + ": " + read, words.Count(p.routines.Load(), "goroutine")}
	if s := elapsed.Seconds(); s > 0 {
		parts = append(parts, humanBytes(int64(float64(n)/s))+"/s")
	}
	return strings.Join(parts, " · ")
}

// stop ends the display and clears its line.
func (p *readProgress) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.quit)
	<-p.done
}

// Read counts the bytes read through p.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// openTracked opens an input as openInput does, with a progress display
// on the command's standard error: it returns the reader, the counter to
// give formats.ReadOptions.Progress, and a function that stops the display
// and closes the input.
func openTracked(cmd *cobra.Command, name string, quiet bool) (io.Reader, *atomic.Int64, func(), error) {
	src, closeIn, err := openInput(cmd, name)
	if err != nil {
		return nil, nil, nil, err
	}
	var size int64
	if f, ok := src.(*os.File); ok && name != "-" {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
			// An ELF core file: its goroutines, read from it (core.go).
			if r, isCore, err := readCore(cmd, f, displayName(name)); isCore {
				closeIn()
				if err != nil {
					return nil, nil, nil, err
				}
				src, size, closeIn = r, 0, func() {}
			}
		}
	}
	p := newReadProgress(cmd.ErrOrStderr(), displayName(name), size, quiet)
	return countingReader{src, &p.bytes}, &p.routines, func() { p.stop(); closeIn() }, nil
}
