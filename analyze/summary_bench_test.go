package analyze

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// benchTemplates are routines of a server dump over 40 stacks: channel
// waits, mutex waits, IO waits, with creators and parents, a few leaked.
func benchTemplates(b *testing.B) []stack.Routine {
	var specs []g
	for i := range 40 {
		fn := fmt.Sprintf("app.handler%d /app/h.go:%d", i, 10+i)
		switch i % 4 {
		case 0:
			specs = append(specs, g{state: "chan send", wait: i, frames: []string{gopark, chansend1, fn, goexit}, creator: "app.serve /app/s.go:5"})
		case 1:
			specs = append(specs, g{state: "sync.Mutex.Lock", frames: []string{gopark, semacq, "sync.(*Mutex).Lock /go/src/sync/mutex.go:92", fn, goexit}, creator: "app.serve /app/s.go:6"})
		case 2:
			specs = append(specs, g{state: "IO wait", frames: []string{gopark, "internal/poll.runtime_pollWait /go/src/runtime/netpoll.go:351", fn, goexit}, creator: "app.serve /app/s.go:7"})
		default:
			specs = append(specs, g{state: "chan receive", leaked: i%8 == 3, frames: []string{gopark, chanrecv1, fn, goexit}, creator: "app.pool /app/p.go:3"})
		}
	}
	d := dumpOf(b, stack.KindGoTraceback, specs...)
	out := make([]stack.Routine, len(d.Routines))
	for i, r := range d.Routines {
		out[i] = *r
	}
	return out
}

// analyzeStream adds n routines cycling through tmpl, with fresh ids and
// a parent per 100 routines, to a grouper and an analyzer, as the analyze
// command does, and returns the summary.
func analyzeStream(tmpl []stack.Routine, n int) *Summary {
	grouper := dedupe.NewGrouper(dedupe.Options{})
	a := NewAnalyzer(Options{})
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
	for i := range n {
		r := &tmpl[i%len(tmpl)]
		r.ID = int64(i + 1)
		r.ParentID = int64(n + 1 + i/100)
		grouper.Add(r)
		a.Add(r)
		d.Total++
	}
	return a.Summary(d, grouper.Groups(), "")
}

func BenchmarkAnalyze(b *testing.B) {
	tmpl := benchTemplates(b)
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				analyzeStream(tmpl, n)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "routines/s")
		})
	}
}

// BenchmarkAnalyzerHeap reports the live heap an Analyzer holds after a
// million routines: it follows stacks and parents, not routines.
func BenchmarkAnalyzerHeap(b *testing.B) {
	tmpl := benchTemplates(b)
	const n = 1_000_000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a := NewAnalyzer(Options{})
		for i := range n {
			r := &tmpl[i%len(tmpl)]
			r.ID = int64(i + 1)
			r.ParentID = int64(n + 1 + i/100)
			a.Add(r)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(a)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	}
}

// realArgsRoutines copies the demo service's real dump (315 goroutines,
// their arguments as printed) until it holds n routines, each copy with
// fresh ids and every address of its arguments moved, so that the
// analyzer indexes as many distinct addresses as a service of n
// goroutines would.
func realArgsRoutines(b *testing.B, n int) []*stack.Routine {
	dumps := readDumps(b, "../testdata/go/demo_go126.txt")
	tmpl := dumps[0].Routines
	out := make([]*stack.Routine, 0, n)
	for copyN := int64(0); len(out) < n; copyN++ {
		for _, r := range tmpl {
			if len(out) == n {
				break
			}
			c := r.Clone()
			c.ID = int64(len(out) + 1)
			if c.Values != nil {
				for i := range c.Values.Frames {
					c.Values.Frames[i].Args = shiftAddresses(c.Values.Frames[i].Args, copyN<<20)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// shiftAddresses adds delta to every address-looking argument.
func shiftAddresses(args string, delta int64) string {
	parts := strings.Split(args, ", ")
	for i, p := range parts {
		if w := wordOf(p); w != 0 && !strings.HasPrefix(strings.TrimLeft(p, "{ "), "0x0") {
			parts[i] = strings.Replace(p, strconv.FormatUint(w, 16), strconv.FormatUint(w+uint64(delta), 16), 1)
		}
	}
	return strings.Join(parts, ", ")
}

// BenchmarkAnalyzeRealArgs analyses 100,000 routines of a real dump with
// their arguments, as the analyze command does (grouping and analysis),
// and reports the live heap the analyzer holds at the end.
func BenchmarkAnalyzeRealArgs(b *testing.B) {
	routines := realArgsRoutines(b, 100_000)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		grouper := dedupe.NewGrouper(dedupe.Options{})
		a := NewAnalyzer(Options{})
		d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}}
		for _, r := range routines {
			grouper.Add(r)
			a.Add(r)
			d.Total++
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		a.Summary(d, grouper.Groups(), "")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
		runtime.KeepAlive(a)
	}
	b.ReportMetric(float64(len(routines))*float64(b.N)/b.Elapsed().Seconds(), "routines/s")
}
