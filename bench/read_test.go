package bench

import (
	"bytes"
	"testing"
)

// BenchmarkRead reads the same in-memory dump with each parser, touching
// every field of every goroutine: MB/s, B/op and allocs/op side by side.
func BenchmarkRead(b *testing.B) {
	for _, v := range []Variant{Compatible, Modern} {
		for _, n := range readSizes {
			if !wantSize(n) {
				continue
			}
			for _, p := range Parsers {
				b.Run(string(v)+"/"+SizeName(n)+"/"+p.Name, func(b *testing.B) {
					dump, st := loadDump(b, v, n)
					b.SetBytes(int64(len(dump)))
					b.ReportAllocs()
					var res Result
					cpu := CPUTime()
					for b.Loop() {
						var err error
						if res, err = p.Read(bytes.NewReader(dump)); err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu, int64(len(dump)))
					if p.Name == "stackdump" && res.Goroutines != st.Goroutines {
						b.Fatalf("stackdump read %d goroutines of %d", res.Goroutines, st.Goroutines)
					}
					b.ReportMetric(float64(res.Goroutines), "goroutines")
				})
			}
		}
	}
}

// BenchmarkReadHeap streams a dump from its file with each parser and
// reports the peak heap it took (peak-heap-MiB, see HeapPeak). stackdump
// drops each routine after reading it; the peers return every goroutine.
// Its ns/op is disturbed by the sampling: read speed from BenchmarkRead.
func BenchmarkReadHeap(b *testing.B) {
	for _, n := range heapSizes {
		if !wantSize(n) {
			continue
		}
		for _, p := range Parsers {
			b.Run(string(Compatible)+"/"+SizeName(n)+"/"+p.Name, func(b *testing.B) {
				path, st := dumpPath(b, Compatible, n)
				var peak uint64
				for b.Loop() {
					f := openDump(b, path)
					var res Result
					var err error
					peak = max(peak, HeapPeak(func() { res, err = p.Read(f) }))
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
					if res.Goroutines != st.Goroutines {
						b.Fatalf("%s read %d goroutines of %d", p.Name, res.Goroutines, st.Goroutines)
					}
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}
