package pprof_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

var pprofOffsetError = regexp.MustCompile(`offset (\d+) of (\d+) bytes`)

// FuzzPprof reads any bytes as a pprof goroutine profile: no panic, errors
// that point inside the input, totals that are the sum of the counts, and
// what was read writes and reads back to the same samples.
func FuzzPprof(f *testing.F) {
	for _, raw := range dumptest.ReadSeeds(f, "../../testdata/pprof/*.pb.gz", "../../testdata/corpus/go/*debug0.pb.gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			f.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tab := stack.NewTable()
		dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{Kind: stack.KindGoPprof, Table: tab, MaxDecompressedBytes: 1 << 20})
		if err != nil {
			if m := pprofOffsetError.FindStringSubmatch(err.Error()); m != nil {
				off, _ := strconv.Atoi(m[1])
				size, _ := strconv.Atoi(m[2])
				if off >= size {
					t.Fatalf("offset past the end: %v", err)
				}
			}
			return
		}
		if len(dumps) > 1 {
			t.Fatalf("%d dumps from one profile", len(dumps))
		}
		for _, d := range dumps {
			var sum int64
			for _, r := range d.Routines {
				sum += r.Count
				if r.Count == 0 || r.Stack == nil {
					t.Fatalf("routine %+v", r)
				}
			}
			if sum != d.Total {
				t.Fatalf("total %d, counts sum to %d", d.Total, sum)
			}
			out := dumptest.Encode(t, pprof.NewEncoder, d)
			back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
			if err != nil {
				t.Fatalf("reading stackdump's own profile: %v", err)
			}
			dumptest.CheckSameGroups(t, []*stack.Dump{d}, back)
		}
	})
}
