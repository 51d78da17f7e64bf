// Command gopsagent is the live gops target of remote's tests: a Go
// program that runs a gops agent (github.com/google/gops/agent, its port
// file written into $GOPS_CONFIG_DIR as gops does) and parks 5 goroutines
// in main.parkedForGops.
//
// It prints "listening ADDR" (the agent's address) once they are parked,
// answers "pid" with its process id, and exits when its standard input
// closes. It is a module of its own, so that the library's go.mod does
// not require gops (and, through it, golang.org/x/sys) for a test;
// internal/livechild builds it in its module.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/google/gops/agent"
)

//go:noinline
func parkedForGops(ch chan struct{}, ready *sync.WaitGroup) {
	ready.Done()
	<-ch
}

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	addr := l.Addr().String()
	l.Close()
	if err := agent.Listen(agent.Options{Addr: addr}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer agent.Close() // removes the port file
	never := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(5)
	for range 5 {
		go parkedForGops(never, &ready)
	}
	ready.Wait()
	fmt.Println("listening", addr)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch sc.Text() {
		case "pid":
			fmt.Println(os.Getpid())
		default:
			fmt.Println("unknown command")
		}
	}
}
