package bench

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/stackdump/stackdump/leakcheck"
)

// leakCheckers are the two leak checkers, through the calls a test makes:
// an IgnoreCurrent snapshot and a Find.
var leakCheckers = []struct {
	name   string
	ignore func() any
	find   func(ignore any) error
}{
	{"leakcheck", func() any { return leakcheck.IgnoreCurrent() },
		func(o any) error { return leakcheck.Find(o.(leakcheck.Option)) }},
	{"goleak", func() any { return goleak.IgnoreCurrent() },
		func(o any) error { return goleak.Find(o.(goleak.Option)) }},
}

// parkGoroutines starts n goroutines in three shapes (channel receive,
// select, a sleep loop) and returns a function that ends them.
func parkGoroutines(n int) (stop func()) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0:
				<-release
			case 1:
				tick := make(chan int)
				select {
				case <-release:
				case <-tick:
				}
			default:
				for {
					select {
					case <-release:
						return
					case <-time.After(time.Second):
					}
				}
			}
		}()
	}
	return func() { close(release); wg.Wait() }
}

// BenchmarkLeakCheck/pass/10k: a check that passes while 10k background
// goroutines run, ignored through IgnoreCurrent (snapshot + check per op).
// BenchmarkLeakCheck/fail/10k: a check that fails on 10k leftovers in three
// shapes, after the retries (the default 20, sleeping up to 100ms); lines/op
// is the length of the report.
func BenchmarkLeakCheck(b *testing.B) {
	const n = 10_000
	for _, c := range leakCheckers {
		b.Run("pass/10k/"+c.name, func(b *testing.B) {
			stop := parkGoroutines(n)
			defer stop()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := c.find(c.ignore()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, c := range leakCheckers {
		b.Run("fail/10k/"+c.name, func(b *testing.B) {
			before := c.ignore()
			stop := parkGoroutines(n)
			defer stop()
			var lines int
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				err := c.find(before)
				if err == nil {
					b.Fatal("no leak found")
				}
				lines = strings.Count(err.Error(), "\n") + 1
			}
			b.ReportMetric(float64(lines), "lines/op")
		})
	}
}
