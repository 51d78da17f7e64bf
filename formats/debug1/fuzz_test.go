package debug1_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// FuzzDebug1 reads any text as a debug=1 profile: no panic, no error on an
// in-memory input but ErrNotGoroutineProfile at a header inside it (a
// profile of something else stops reading), warnings that point inside the input, totals that are
// the sum of the counts, and writing what was read is a fixed point after
// one pass (write, read, write gives the same bytes).
func FuzzDebug1(f *testing.F) {
	for _, b := range dumptest.ReadSeeds(f, "../../testdata/debug1/*.txt", "../../testdata/corpus/go/*debug1.txt") {
		f.Add(b)
	}
	f.Add([]byte("goroutine profile: total 3\n2 @ 0x1\n# labels: {\"a\":\"b\\n\"}\n#\t0x0\tmain.a+0x1c\t/a.go:3\n#\t0x4a\n\n1 @\n"))
	f.Add([]byte("junk\ngoroutineleak profile: total 1\n1 @ 0x1\n#   0x0   main.F[go.shape.struct { A int }]+0x0   C:/a b.go:1\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{Kind: stack.KindGoDebug1})
		lines := bytes.Count(in, []byte("\n")) + 1
		if err != nil {
			var pe *stack.ParseError
			if !errors.Is(err, stack.ErrNotGoroutineProfile) || !errors.As(err, &pe) ||
				pe.Line < 1 || pe.Line > lines || pe.Offset < 0 || pe.Offset >= int64(len(in)) {
				t.Fatalf("error on an in-memory input: %v", err)
			}
		}
		for _, d := range dumps {
			var sum int64
			for _, r := range d.Routines {
				sum += r.Count
				if r.Count < 1 || r.Stack == nil || r.Line < 1 || r.Line > lines {
					t.Fatalf("routine %+v", r)
				}
			}
			if sum != d.Total {
				t.Fatalf("total %d, counts sum to %d", d.Total, sum)
			}
			for _, w := range d.Warnings {
				if w.Line < 1 || w.Line > lines || w.Offset < 0 || w.Offset > int64(len(in)) || w.Msg == "" {
					t.Fatalf("warning out of the input (%d lines, %d bytes): %+v", lines, len(in), w)
				}
			}
		}
		first := dumptest.Encode(t, debug1.NewEncoder, dumps...)
		again, err := formats.ReadAll(bytes.NewReader(first), formats.ReadOptions{Kind: stack.KindGoDebug1})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range again {
			if len(d.Warnings) > 0 {
				t.Fatalf("reading stackdump's own output: %v\n%s", d.Warnings, first)
			}
		}
		if second := dumptest.Encode(t, debug1.NewEncoder, again...); !bytes.Equal(first, second) {
			t.Fatalf("not a fixed point:\n%q\n%q", first, second)
		}
	})
}
