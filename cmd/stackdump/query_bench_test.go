package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/output"
)

// manyDumpsFile writes n stackdump JSON documents, one after another and
// gzipped, made from the real Go dumps of testdata/go in turn, and returns
// its path, its size and the size of its largest document.
func manyDumpsFile(b *testing.B, n int) (path string, size, largest int) {
	b.Helper()
	var docs [][]byte
	for _, name := range []string{"debug2_go126.txt", "demo_go126.txt", "labels_go126.txt", "leak_go126.txt", "stacks2_go126.txt"} {
		in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", name))
		if err != nil {
			b.Fatal(err)
		}
		var doc bytes.Buffer
		enc, err := formats.NewEncoder(&doc, output.JSON)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := formats.Copy(enc, formats.NewReader(bytes.NewReader(in), formats.ReadOptions{}), nil); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, doc.Bytes())
		largest = max(largest, doc.Len())
	}
	path = filepath.Join(b.TempDir(), "many.json.gz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	for i := range n {
		if _, err := zw.Write(docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, int(fi.Size()), largest
}

// peakHeap samples the bytes of live and unswept heap objects every 100 µs
// until stop is called, which returns the largest sample.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkQueryManyDumps queries a file of 1,200 dumps (made from real
// dumps in testdata/go) with a per-document path and reports the peak
// heap: query streams, so the peak follows the largest document, not the
// file. The ".." form, which must hold every document, is reported too.
func BenchmarkQueryManyDumps(b *testing.B) {
	path, size, largest := manyDumpsFile(b, 1200)
	for _, q := range []struct{ name, path string }{
		{"per-document", "total"},
		{"grouped", "groups.#"},
		{"json-lines", "..#"},
	} {
		b.Run(q.name, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := peakHeap()
				args := []string{"query", path, q.path}
				if q.name == "grouped" {
					args = []string{"query", "--dedupe", path, q.path}
				}
				root := newRootCommand()
				root.SetArgs(args)
				root.SetOut(io.Discard)
				root.SetErr(io.Discard)
				err := root.Execute()
				peak = max(peak, stop())
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(size)/(1<<20), "file-MiB")
			b.ReportMetric(float64(largest)/(1<<20), "largest-doc-MiB")
		})
	}
}
