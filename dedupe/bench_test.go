package dedupe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// benchRoutines returns templates of routines over a few dozen interned
// stacks (48 code paths, several offsets each), with the states, labels,
// creators and arguments a server dump has. A benchmark hands them to the
// Grouper in turn with fresh ids, as a streaming reader would.
func benchRoutines() []stack.Routine {
	g := newGen(42)
	paths := genPaths(48, 0)
	labels := []stack.Labels{nil, g.t.Labels(stack.Labels{{Key: "svc", Value: "web"}}), g.t.Labels(stack.Labels{{Key: "svc", Value: "db"}, {Key: "tenant", Value: "7"}})}
	out := make([]stack.Routine, 1024)
	for i := range out {
		r := g.routine(paths[g.rnd.IntN(len(paths))], 0)
		r.Labels = labels[i%len(labels)]
		r.ParentID = int64(1 + i%5)
		out[i] = *r
	}
	return out
}

// groupStream groups n routines cycling through tmpl, ids 1..n.
func groupStream(tmpl []stack.Routine, n int, opts Options) *Grouper {
	g := NewGrouper(opts)
	for i := range n {
		r := &tmpl[i%len(tmpl)]
		r.ID = int64(i + 1)
		g.Add(r)
	}
	return g
}

func BenchmarkGroup(b *testing.B) {
	tmpl := benchRoutines()
	for _, by := range []By{ByStack, ByFunc, ByExact} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			if by != ByStack && n > 100_000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/%dk", by, n/1000), func(b *testing.B) {
				opts := Options{By: by}
				b.ReportAllocs()
				for b.Loop() {
					groupStream(tmpl, n, opts).Groups()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "routines/s")
				b.ReportMetric(retainedHeap(func() any { return groupStream(tmpl, n, opts) })/(1<<20), "heap-MiB")
			})
		}
	}
}

// retainedHeap returns the bytes of live heap that what build returns
// holds on to.
func retainedHeap(build func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}

// BenchmarkReadAndGroup reads a 14,200-goroutine debug=2 dump (panicweb's
// 71 goroutines, renumbered 200 times) with and without grouping: the
// grouping must cost little next to the reading.
func BenchmarkReadAndGroup(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "go", "panicparse_panicweb_debug2.txt"))
	if err != nil {
		b.Fatal(err)
	}
	big, n := repeatDump(data, 200)
	run := func(b *testing.B, group bool) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for b.Loop() {
			rd := formats.NewReader(bytes.NewReader(big), formats.ReadOptions{})
			if _, err := rd.Next(); err != nil {
				b.Fatal(err)
			}
			g := NewGrouper(Options{})
			for r, err := range rd.Routines() {
				if err != nil {
					b.Fatal(err)
				}
				if group {
					g.Add(r)
				}
			}
			if group && g.Total() != int64(n) {
				b.Fatalf("grouped %d routines, want %d", g.Total(), n)
			}
			g.Groups()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "routines/s")
	}
	b.Run("read", func(b *testing.B) { run(b, false) })
	b.Run("read+group", func(b *testing.B) { run(b, true) })
}

// repeatDump returns the goroutines of a debug=2 dump copied k times with
// fresh ids, and how many goroutines that is.
func repeatDump(dump []byte, k int) ([]byte, int) {
	blocks := strings.Split(strings.TrimSpace(string(dump)), "\n\n")
	var out bytes.Buffer
	id := 0
	for range k {
		for _, blk := range blocks {
			_, rest, ok := strings.Cut(blk, " [")
			if !ok || !strings.HasPrefix(blk, "goroutine ") {
				continue
			}
			id++
			fmt.Fprintf(&out, "goroutine %d [%s\n\n", id, rest)
		}
	}
	return out.Bytes(), id
}
