package bench

import (
	"bytes"
	"testing"

	"github.com/stackdump/stackdump/bench/gen"
)

// The contestants must all read the whole dump, and the by-stack groupings
// must find the generator's distinct stacks, or the benchmarks compare
// different work.
func TestContestantsAgree(t *testing.T) {
	dump, st := gen.Generate(gen.Compatible(1000, 3))
	var sums []uint64
	for _, p := range Parsers {
		res, err := p.Read(bytes.NewReader(dump))
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if res.Goroutines != st.Goroutines || res.Errors != 0 || res.Frames == 0 || res.Sum == 0 {
			t.Errorf("%s: %+v, want %d goroutines and no errors", p.Name, res, st.Goroutines)
		}
		sums = append(sums, res.Sum)
	}
	for _, g := range Groupings {
		res, err := g.Group(bytes.NewReader(dump))
		if err != nil {
			t.Fatalf("%s: %v", g.Name, err)
		}
		if res.Goroutines != st.Goroutines {
			t.Errorf("%s grouped %d goroutines of %d", g.Name, res.Goroutines, st.Goroutines)
		}
		switch g.Name {
		case "stackdump", "gostackparse+map":
			if res.Groups != st.Stacks {
				t.Errorf("%s made %d groups, the dump has %d distinct stacks", g.Name, res.Groups, st.Stacks)
			}
		default: // panicparse also splits by creator goroutine id and values
			if res.Groups < st.Stacks {
				t.Errorf("%s made %d groups, fewer than the %d distinct stacks", g.Name, res.Groups, st.Stacks)
			}
		}
	}
}

func TestSizeNames(t *testing.T) {
	for _, c := range []struct {
		n    int
		name string
	}{{1000, "1k"}, {10_000, "10k"}, {1_000_000, "1M"}, {1500, "1500"}, {2_000_000, "2M"}} {
		if got := SizeName(c.n); got != c.name {
			t.Errorf("SizeName(%d) = %q, want %q", c.n, got, c.name)
		}
		if got, err := ParseSize(c.name); err != nil || got != c.n {
			t.Errorf("ParseSize(%q) = %d, %v", c.name, got, err)
		}
	}
	for _, bad := range []string{"", "k", "-1k", "1x", "0"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// HeapPeak sees a live allocation made inside fn.
func TestHeapPeakSeesAllocation(t *testing.T) {
	var keep []byte
	peak := HeapPeak(func() {
		keep = make([]byte, 32<<20)
		for i := range keep {
			keep[i] = byte(i)
		}
	})
	if peak < 32<<20 {
		t.Fatalf("peak %d bytes, want at least 32 MiB", peak)
	}
	_ = keep[len(keep)-1]
}
