package leakcheck_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/leakcheck"
)

// waitForever stands for a goroutine a test forgot to stop.
func waitForever(started *sync.WaitGroup, stop <-chan struct{}) {
	started.Done()
	<-stop
}

// Three goroutines left blocked are found as one counted group; once they
// are stopped the check passes.
func ExampleFind() {
	before := leakcheck.IgnoreCurrent()

	var started, running sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		started.Add(1)
		running.Add(1)
		go func() {
			defer running.Done()
			waitForever(&started, stop)
		}()
	}
	started.Wait()

	err := leakcheck.Find(before, leakcheck.MaxRetries(2))
	var leak *leakcheck.Error
	if errors.As(err, &leak) {
		groups := append(leak.Proven, leak.Other...)
		fmt.Printf("%d goroutines left in %d group\n", leak.ProvenCount+leak.OtherCount, len(groups))
		for _, g := range groups {
			fmt.Println(g.Count, dedupe.TopFrame(g.Sample.Stack).Func)
		}
	}

	close(stop)
	running.Wait()
	fmt.Println("after stopping them:", leakcheck.Find(before))
	// Output:
	// 3 goroutines left in 1 group
	// 3 github.com/stackdump/stackdump/leakcheck_test.waitForever
	// after stopping them: <nil>
}
