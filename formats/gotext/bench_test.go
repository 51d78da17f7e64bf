package gotext

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// BenchmarkReadGoText reads whole generated debug=2 dumps, interning into
// a fresh Table each time, and touches every field of every routine (ids,
// state, wait, parent, each frame's function, file and line, each frame's
// arguments), so that nothing read lazily goes unpaid. "fresh" yields a
// new routine each time, as ReadAll needs; "reuse" reads with
// ReadOptions.ReuseRoutines, as Copy does.
func BenchmarkReadGoText(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		data := dumptest.TracebackBytes(n)
		for _, mode := range []struct {
			name  string
			reuse bool
		}{{"fresh", false}, {"reuse", true}} {
			b.Run(strconv.Itoa(n/1000)+"k/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var routines int64
				var sum uint64
				for b.Loop() {
					routines = 0
					rd := NewReader(bytes.NewReader(data), ReadOptions{ReuseRoutines: mode.reuse})
					for {
						d, err := rd.Next()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						for r, err := range rd.Routines() {
							if err != nil {
								b.Fatal(err)
							}
							sum += touchRoutine(r)
						}
						routines += d.Total
					}
				}
				if routines != int64(n) || sum == 0 {
					b.Fatalf("%d routines, want %d", routines, n)
				}
			})
		}
	}
}

// touchRoutine folds the fields a reader fills into a number, so that
// reading them is not optimised away.
func touchRoutine(r *stack.Routine) uint64 {
	s := uint64(r.ID) + uint64(len(r.State)) + uint64(r.WaitMinutes) + uint64(r.ParentID)
	if r.Locked {
		s++
	}
	for _, l := range r.Labels {
		s += uint64(len(l.Key) + len(l.Value))
	}
	if f := r.CreatedBy; f != nil {
		s += uint64(len(f.Func)+len(f.File)+f.Line) + f.Offset
	}
	for _, f := range r.Stack.Frames {
		s += uint64(len(f.Func)+len(f.File)+f.Line) + f.Offset
	}
	if r.Values != nil {
		for _, v := range r.Values.Frames {
			s += uint64(len(v.Args)) + v.PC
		}
	}
	for _, a := range r.Ancestors {
		s += uint64(a.ID) + uint64(len(a.Stack.Frames))
	}
	return s
}

// BenchmarkReadGoTextStreamHeap streams a 100k-goroutine dump from a
// generator (the input is never in memory) and reports the largest live
// heap seen while reading, in MiB: it must stay under 64.
func BenchmarkReadGoTextStreamHeap(b *testing.B) {
	const n = 100_000
	var peak uint64
	var ms runtime.MemStats
	for b.Loop() {
		runtime.GC()
		rd := NewReader(dumptest.NewTraceback(n), ReadOptions{})
		if _, err := rd.Next(); err != nil {
			b.Fatal(err)
		}
		i := 0
		for _, err := range rd.Routines() {
			if err != nil {
				b.Fatal(err)
			}
			if i++; i%10_000 == 0 {
				runtime.GC() // live heap, not garbage waiting for collection
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
