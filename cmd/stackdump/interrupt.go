package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/stackdump/stackdump/internal/atomicfile"
)

// interrupts is how the command ends on SIGINT or SIGTERM: every
// temporary output file is removed at once (atomicfile.Interrupt, so no
// partial file is published or left behind), and the process exits with
// 128 plus the signal's number (130, 143). A command that winds down by
// itself on a signal (capture, watch: it asked through signalContext) is
// let finish first; any other exits at once, whatever it was blocked on
// (a read of standard input that is still arriving). A second signal
// exits at once.
type interrupts struct {
	ch     chan os.Signal
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	graceful bool
	sig      syscall.Signal // the first signal received, 0 before
}

type interruptsKey struct{}

// handleInterrupts starts handling SIGINT and SIGTERM and returns the
// context to run the command in, cancelled on the first signal.
func handleInterrupts(parent context.Context) (context.Context, *interrupts) {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{ch: make(chan os.Signal, 2), cancel: cancel, done: make(chan struct{})}
	ctx = context.WithValue(ctx, interruptsKey{}, in)
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go in.run()
	return ctx, in
}

func (in *interrupts) run() {
	defer close(in.done)
	for s := range in.ch {
		sig, _ := s.(syscall.Signal)
		atomicfile.Interrupt()
		in.mu.Lock()
		first := in.sig == 0
		if first {
			in.sig = sig
		}
		graceful := in.graceful
		in.mu.Unlock()
		if first && graceful {
			in.cancel()
			continue
		}
		os.Exit(128 + int(sig))
	}
}

// windDown marks the running command as one that ends by itself when
// ctx is cancelled; it reports whether ctx is handleInterrupts's.
func windDown(ctx context.Context) bool {
	in, _ := ctx.Value(interruptsKey{}).(*interrupts)
	if in == nil {
		return false
	}
	in.mu.Lock()
	in.graceful = true
	in.mu.Unlock()
	return true
}

// stop ends the handling and returns the exit status the signal received
// calls for (0 when none was).
func (in *interrupts) stop() int {
	signal.Stop(in.ch)
	close(in.ch)
	<-in.done
	in.cancel()
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.sig == 0 {
		return 0
	}
	atomicfile.Interrupt()
	return 128 + int(in.sig)
}
