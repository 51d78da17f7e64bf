// Command groups writes real goroutine dumps of one process, in three
// formats, for the grouping tests (similarity levels and keys):
//
//	<out>/debug2_go126.txt       pprof.Lookup("goroutine").WriteTo(f, 2)
//	<out>/debug1_go126.txt       pprof.Lookup("goroutine").WriteTo(f, 1)
//	<out>/debug0_go126.pb.gz     pprof.Lookup("goroutine").WriteTo(f, 0)
//	<out>/debug2_after_go126.txt debug=2 again, once the waiters with n = 4
//	                             were replaced by as many with n = 5
//
// Its goroutines wait in functions called with known arguments, and in
// instantiations of generic functions:
//
//   - main.waitArg(n): nArgValues distinct values of n (1, 2, 3, 4),
//     nPerArg goroutines each, all started by one go statement at one
//     line, so that only the argument n tells them apart; in the "after"
//     dump the ones with n = 4 are gone and nPerArg with n = 5 are new;
//   - main.process[T] for T = int (nGenericInt), string (nGenericString)
//     and *main.item (nGenericPtr), and the method main.(*box[T]).wait for
//     T = int (nBoxInt), so that pprof names them with go.shape types and
//     tracebacks and debug=1 with [...].
//
// README.md in testdata/gen has the exact command.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// How many goroutines wait in each function. Tests assert these counts.
const (
	nArgValues     = 4 // distinct values of waitArg's n: 1..4
	nPerArg        = 3 // goroutines per value
	nGenericInt    = 5 // main.process[int]
	nGenericString = 4 // main.process[string]
	nGenericPtr    = 2 // main.process[*main.item]
	nBoxInt        = 3 // main.(*box[int]).wait
)

func main() {
	out := flag.String("out", "testdata/groups", "directory to write the dumps to")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(out string) error {
	before := runtime.NumGoroutine()
	release := startWaiters()
	want := before + nArgValues*nPerArg + nGenericInt + nGenericString + nGenericPtr + nBoxInt
	if err := waitFor(want); err != nil {
		return err
	}
	p := pprof.Lookup("goroutine")
	for _, f := range []struct {
		name  string
		debug int
	}{{"debug2_go126.txt", 2}, {"debug1_go126.txt", 1}, {"debug0_go126.pb.gz", 0}} {
		if err := write(filepath.Join(out, f.name), p, f.debug); err != nil {
			return err
		}
	}
	// Replace the waiters with n = 4 by as many with n = 5.
	close(quit[nArgValues])
	if err := waitFor(want - nPerArg); err != nil {
		return err
	}
	startArgWaiters(nArgValues + 1)
	if err := waitFor(want); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "debug2_after_go126.txt"), p, 2); err != nil {
		return err
	}
	release()
	return nil
}

// quit[n] releases the waiters with argument n.
var quit [nArgValues + 2]chan int

func startArgWaiters(n int) {
	quit[n] = make(chan int)
	for range nPerArg {
		go waitArg(n)
	}
}

type item struct{ name string }

type box[T any] struct{ v T }

func startWaiters() (release func()) {
	block := make(chan int)
	for n := 1; n <= nArgValues; n++ {
		startArgWaiters(n)
	}
	for i := range nGenericInt {
		go process(i, block)
	}
	for i := range nGenericString {
		go process(fmt.Sprint("s", i), block)
	}
	for i := range nGenericPtr {
		go process(&item{fmt.Sprint("p", i)}, block)
	}
	for i := range nBoxInt {
		b := &box[int]{i}
		go b.wait(block)
	}
	return func() {
		close(block)
		for n := 1; n <= nArgValues+1; n++ {
			if n != nArgValues {
				close(quit[n])
			}
		}
	}
}

// waitArg blocks until quit[n] is closed; only n tells goroutines apart.
//
//go:noinline
func waitArg(n int) int {
	v := <-quit[n]
	return v + n
}

// process blocks on c, once per instantiation.
//
//go:noinline
func process[T any](v T, c chan int) T {
	<-c
	return v
}

//go:noinline
func (b *box[T]) wait(c chan int) T {
	<-c
	return b.v
}

// waitFor waits until exactly n goroutines exist, then a little longer so that the
// last ones started are parked.
func waitFor(n int) error {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() != n {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d goroutines, want %d", runtime.NumGoroutine(), n)
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return nil
}

func write(path string, p *pprof.Profile, debug int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteTo(f, debug); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
