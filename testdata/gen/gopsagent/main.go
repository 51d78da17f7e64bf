// Command gopsagent is a Go program that runs a real gops agent
// (github.com/google/gops/agent) for remote's gops:// tests, with a known
// number of goroutines parked in main.parkedInGopsTarget. It is a module
// of its own so that the library's go.mod does not require gops (and,
// through it, golang.org/x/sys) for a test.
//
//	gopsagent 127.0.0.1:PORT 7
//
// listens for gops on the address, parks the goroutines, prints
// "listening ADDR" and exits when its standard input closes.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/google/gops/agent"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gopsagent ADDR GOROUTINES")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopsagent:", err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "gopsagent")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopsagent:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := agent.Listen(agent.Options{Addr: os.Args[1], ConfigDir: dir}); err != nil {
		fmt.Fprintln(os.Stderr, "gopsagent: starting the agent:", err)
		os.Exit(1)
	}
	defer agent.Close()
	block, parked := make(chan struct{}), make(chan struct{})
	for range n {
		go parkedInGopsTarget(parked, block)
	}
	for range n {
		<-parked
	}
	fmt.Println("listening", os.Args[1])
	io.Copy(io.Discard, os.Stdin)
	close(block)
}

// parkedInGopsTarget says it runs, then blocks until block closes: once
// main has n such words, n goroutines have this function on their stack.
//
//go:noinline
func parkedInGopsTarget(parked chan<- struct{}, block <-chan struct{}) {
	parked <- struct{}{}
	<-block
}
