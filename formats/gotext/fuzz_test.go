package gotext

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// FuzzGoText reads arbitrary text as a Go traceback: it must never panic,
// every problem must be a *ParseError naming a line of the input, every
// routine must have a stack, and each dump's Total must be the sum of its
// routines' counts. A small line limit exercises the long-line path.
// Reading with ReuseRoutines must yield the same routines as ReadAll, and
// reading frames whole (wholeFrame) the same as line by line.
func FuzzGoText(f *testing.F) {
	// (testdata/fuzz/FuzzGoText, the fuzzer's own corpus, is loaded by go test.)
	for _, data := range dumptest.ReadSeeds(f, "../../testdata/corpus/go/*.txt", "../../testdata/corpus/go/malformed/*.txt", "../../testdata/go/*.txt") {
		// Big seeds make the fuzzer crawl: keep the first lines of each.
		if len(data) > 6<<10 {
			data = data[:bytes.LastIndexByte(data[:6<<10], '\n')+1]
		}
		f.Add(data, uint16(0))
	}
	f.Add([]byte(g1+"\n"+g2), uint16(40))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint16) {
		lines := bytes.Count(data, []byte("\n")) + 1
		rd := NewReader(bytes.NewReader(data), ReadOptions{MaxLineBytes: int(maxLine)})
		for {
			d, err := rd.Next()
			if err != nil {
				// The end, or an input that holds no dump, only goroutine
				// headers inside other text: a warning naming the first.
				var pe *stack.ParseError
				if err.Error() == "EOF" {
					break
				}
				if !errors.Is(err, stack.ErrNotDump) || !errors.As(err, &pe) || pe.Line <= 0 || pe.Line > lines {
					t.Fatalf("Next: %v", err)
				}
				return // no dump: nothing to compare below
			}
			var sum int64
			for r, err := range rd.Routines() {
				if err != nil {
					var pe *stack.ParseError
					if !errors.As(err, &pe) {
						t.Fatalf("not a ParseError: %v", err)
					}
					if pe.Line <= 0 || pe.Line > lines || pe.Offset < 0 || pe.Offset > int64(len(data)) {
						t.Fatalf("error outside the input (%d lines, %d bytes): %+v", lines, len(data), pe)
					}
					continue
				}
				if r == nil || r.Stack == nil || r.Count != 1 || r.Line <= 0 || r.Line > lines {
					t.Fatalf("bad routine %+v", r)
				}
				sum += r.Count
			}
			if d.Total != sum {
				t.Fatalf("Total = %d, sum of counts %d", d.Total, sum)
			}
		}
		// Reused routines read the same as fresh ones.
		checkReuseMatchesReadAll(t, data, ReadOptions{MaxLineBytes: int(maxLine)})
		// Frames taken whole read the same as line by line.
		checkWholeFrames(t, data, ReadOptions{MaxLineBytes: int(maxLine)})
	})
}
