// Command gopsagent is a Go program that runs a real gops agent
// (github.com/google/gops/agent) for remote's gops:// tests, with 7
// goroutines parked in main.parkedInGopsTarget. It is a module of its own
// so that the library's go.mod does not require gops (and, through it,
// golang.org/x/sys) for a test.
//
// It listens for gops on a port of 127.0.0.1 the system picks, parks the
// goroutines, prints "listening 127.0.0.1:PORT" (as the programs of
// internal/livechild do) and exits when its standard input closes.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/gops/agent"
)

const parked = 7

func main() {
	dir, err := os.MkdirTemp("", "gopsagent")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if err := agent.Listen(agent.Options{Addr: "127.0.0.1:0", ConfigDir: dir}); err != nil {
		fail(fmt.Errorf("starting the agent: %w", err))
	}
	defer agent.Close()
	// The agent writes the port it listens on into CONFIGDIR/PID.
	port, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(os.Getpid())))
	if err != nil {
		fail(fmt.Errorf("the agent's port: %w", err))
	}
	block, started := make(chan struct{}), make(chan struct{})
	for range parked {
		go parkedInGopsTarget(started, block)
	}
	for range parked {
		<-started
	}
	fmt.Println("listening 127.0.0.1:" + strings.TrimSpace(string(port)))
	io.Copy(io.Discard, os.Stdin)
	close(block)
}

// parkedInGopsTarget says it runs, then blocks until block closes: once
// main has heard from all of them, each goroutine has this function on
// its stack.
//
//go:noinline
func parkedInGopsTarget(started chan<- struct{}, block <-chan struct{}) {
	started <- struct{}{}
	<-block
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gopsagent:", err)
	os.Exit(1)
}
