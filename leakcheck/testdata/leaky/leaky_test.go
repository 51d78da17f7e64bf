// Package leaky is the test package leakcheck's tests run with a real
// `go test`, on the local toolchain and on Go 1.27. Its tests leak only
// when LEAKCHECK_CHILD asks them to.
package leaky

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/leakcheck"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("LEAKCHECK_FD2"); path != "" {
		verifyWithFD2(m, path)
		return
	}
	leakcheck.VerifyTestMain(m)
}

// TestClean starts and ends goroutines: VerifyNone passes.
func TestClean(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-done
		}()
	}
	close(done)
	wg.Wait()
}

func sendForever(ch chan int) { ch <- 1 }

func selectForever(a, b chan int) {
	select {
	case <-a:
	case b <- 1:
	}
}

func sleepLong() { time.Sleep(time.Hour) }

// TestLeaky leaves 10,000 goroutines in three shapes: 5000 sending and
// 3000 selecting on channels nothing else holds (proven leaked on Go
// 1.27), 2000 sleeping (never proven).
func TestLeaky(t *testing.T) {
	if os.Getenv("LEAKCHECK_CHILD") != "leaky" {
		t.Skip("leaks only when leakcheck's tests run it")
	}
	defer leakcheck.VerifyNone(t)
	for range 5000 {
		go sendForever(make(chan int))
	}
	for range 3000 {
		go selectForever(make(chan int), make(chan int))
	}
	for range 2000 {
		go sleepLong()
	}
}

// TestLeakAtMain leaves one goroutine for VerifyTestMain to find.
func TestLeakAtMain(t *testing.T) {
	if os.Getenv("LEAKCHECK_CHILD") != "main" {
		t.Skip("leaks only when leakcheck's tests run it")
	}
	go sendForever(make(chan int))
}

// parallelChecked is closed when TestParallelA's check has ended, so
// that TestParallelB is still running while TestParallelA checks.
var parallelChecked = make(chan struct{})

// TestParallelA and TestParallelB are top-level parallel tests, each with
// its own check: neither the other test nor the testing package's
// goroutine waiting for them is a leftover.
func TestParallelA(t *testing.T) {
	t.Parallel()
	defer close(parallelChecked)
	defer leakcheck.VerifyNone(t)
}

func TestParallelB(t *testing.T) {
	t.Parallel()
	defer leakcheck.VerifyNone(t)
	<-parallelChecked
}
