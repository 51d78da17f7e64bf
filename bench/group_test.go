package bench

import (
	"strings"
	"testing"
)

// BenchmarkGroup reads a dump from its file and groups goroutines with the
// same stack, with each contestant. Slow peers run only with -slow, see
// peerIsSlow.
func BenchmarkGroup(b *testing.B) {
	for _, n := range groupSizes {
		if !wantSize(n) {
			continue
		}
		for _, g := range Groupings {
			if peerIsSlow(g.Name, n) && !*flagSlow {
				continue
			}
			if n >= 1_000_000 && strings.HasPrefix(g.Name, "panicparse") {
				continue
			}
			b.Run(string(Compatible)+"/"+SizeName(n)+"/"+g.Name, func(b *testing.B) {
				path, st := dumpPath(b, Compatible, n)
				b.SetBytes(st.Bytes)
				b.ReportAllocs()
				var res GroupResult
				cpu := CPUTime()
				for b.Loop() {
					f := openDump(b, path)
					var err error
					res, err = g.Group(f)
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu, st.Bytes)
				if res.Goroutines != st.Goroutines {
					b.Fatalf("%s read %d goroutines of %d", g.Name, res.Goroutines, st.Goroutines)
				}
				b.ReportMetric(float64(res.Groups), "groups")
			})
		}
	}
}

// BenchmarkGroupHeap reports the peak heap of stackdump reading and
// grouping the 1M dump from its file (peak-heap-MiB, see HeapPeak).
func BenchmarkGroupHeap(b *testing.B) {
	for _, n := range []int{1_000_000} {
		if !wantSize(n) {
			continue
		}
		b.Run(string(Compatible)+"/"+SizeName(n)+"/stackdump", func(b *testing.B) {
			path, st := dumpPath(b, Compatible, n)
			var peak uint64
			for b.Loop() {
				f := openDump(b, path)
				var res GroupResult
				var err error
				peak = max(peak, HeapPeak(func() { res, err = GroupStackdump(f) }))
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				if res.Goroutines != st.Goroutines {
					b.Fatalf("read %d goroutines of %d", res.Goroutines, st.Goroutines)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// peerIsSlow reports whether a grouping takes minutes or several GiB at n
// goroutines on a small machine. panicparse's Aggregate compares each
// goroutine with every bucket so far, and it splits buckets by the creator
// goroutine id of Go 1.21+ `created by … in goroutine N` lines: 100k
// goroutines make about 32k buckets and take minutes. At 1M the peers hold
// every goroutine in memory; panicparse would take hours and never runs.
func peerIsSlow(name string, n int) bool {
	switch {
	case name == "stackdump":
		return false
	case n >= 1_000_000:
		return true
	}
	return n >= 100_000 && strings.HasPrefix(name, "panicparse")
}
