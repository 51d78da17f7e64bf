package formats

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// TestTextRoundTripCorpus reads every Go corpus file, writes it as text
// and reads that again: the models must be equal, field by field (input
// line numbers and the original's parse warnings aside). Writing the
// model read back gives the same text again.
func TestTextRoundTripCorpus(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/go/*.txt", "go/*.txt") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readCorpusFile(t, path)
			text := writeText(t, want...)
			got, err := ReadAll(bytes.NewReader([]byte(text)), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// debug=1 text is written sorted by count, as the runtime sorts it.
			sortRecords(want)
			sortRecords(got)
			dumptest.EqualDumps(t, "text round trip", want, got, dumptest.DescribeOptions{})
			// Our text is as well-formed as the input was: a frame that had
			// no file line still has none, and nothing else is amiss.
			known := map[string]bool{}
			for _, d := range want {
				for _, w := range d.Warnings {
					known[w.Msg] = true
				}
			}
			for _, d := range got {
				for _, w := range d.Warnings {
					if !known[w.Msg] {
						t.Errorf("our text read with a new warning: %v", w)
					}
				}
			}
			if again := writeText(t, got...); again != text {
				t.Errorf("writing the model read back changes the text:\n%s", dumptest.DiffText(text, again))
			}
		})
	}
}

// sortRecords orders the records of grouped dumps, whose writers choose
// their own order, by their description.
func sortRecords(dumps []*stack.Dump) {
	for _, d := range dumps {
		if d.Source.Kind != stack.KindGoDebug1 {
			continue
		}
		slices.SortStableFunc(d.Routines, func(a, b *stack.Routine) int {
			var sa, sb strings.Builder
			dumptest.DescribeRoutine(&sa, a, dumptest.DescribeOptions{})
			dumptest.DescribeRoutine(&sb, b, dumptest.DescribeOptions{})
			return strings.Compare(sa.String(), sb.String())
		})
	}
}

// TestJSONRoundTripGoCorpus does the same through JSON, where every
// field, line numbers and warnings included, must survive, also for the
// malformed inputs.
func TestJSONRoundTripGoCorpus(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/go/*.txt", "go/*.txt", "corpus/go/malformed/*.txt") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readCorpusFile(t, path)
			got := readJSON(t, writeJSON(t, want...), ReadOptions{})
			dumptest.EqualDumps(t, "JSON round trip", want, got, dumptest.DescribeOptions{Lines: true, Warnings: true})
		})
	}
}

// TestTextRoundTripFixture reads the text of the hand-built Go fixture
// back with the Go traceback reader: every field text can carry comes
// back, truncation as a CutMarker line. (Counts, trace-mode marks and
// warnings have no place in traceback text; race reports are read as a
// dump of their own.)
func TestTextRoundTripFixture(t *testing.T) {
	want := dumptest.GoDump(stack.NewTable())
	text := writeText(t, want)
	dumps, err := ReadAll(bytes.NewReader([]byte(text)), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flat := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}, Preamble: dumps[0].Preamble}
	for i, d := range dumps {
		flat.Routines = append(flat.Routines, d.Routines...)
		last := i == len(dumps)-1
		if last != d.Truncated {
			t.Errorf("dump %d of %d read back with Truncated %v", i+1, len(dumps), d.Truncated)
		}
		for _, w := range d.Warnings {
			if !last || !strings.HasPrefix(w.Text, gotext.CutMarker) {
				t.Errorf("our text read with a warning: %v", w)
			}
		}
	}
	norm := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback}, Preamble: want.Preamble}
	for _, r := range want.Routines {
		c := *r
		c.Count, c.Inferred, c.Stale, c.Line = 1, nil, false, 0
		norm.Routines = append(norm.Routines, &c)
	}
	for _, r := range flat.Routines {
		r.Line = 0
	}
	if d := dumptest.DiffText(dumptest.Describe(norm, dumptest.DescribeOptions{}), dumptest.Describe(flat, dumptest.DescribeOptions{})); d != "" {
		t.Error(d)
	}
}
