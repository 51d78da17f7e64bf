package formats

import (
	"bytes"
	"iter"
	"os"
	"testing"

	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// otherSource is a DumpSource that is not a *Reader, as remote.Document
// is not.
type otherSource struct{ rd *Reader }

func (s otherSource) Next() (*stack.Dump, error) { return s.rd.Next() }

func (s otherSource) Routines() iter.Seq2[*stack.Routine, error] { return s.rd.Routines() }

// TestCopyFromAnyDumpSource copies a real traceback from a *Reader and
// from a DumpSource that is not one: the outputs are the same bytes.
func TestCopyFromAnyDumpSource(t *testing.T) {
	data, err := os.ReadFile("../testdata/go/sigquit_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	copyFrom := func(src stack.DumpSource) []byte {
		var out bytes.Buffer
		enc, err := NewEncoder(&out, output.JSON)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Copy(enc, src, nil)
		if err != nil || n != 1 {
			t.Fatalf("Copy: %d dumps, %v", n, err)
		}
		return out.Bytes()
	}
	want := copyFrom(NewReader(bytes.NewReader(data), ReadOptions{}))
	got := copyFrom(otherSource{NewReader(bytes.NewReader(data), ReadOptions{ReuseRoutines: true})})
	if !bytes.Equal(got, want) || len(want) < 1000 {
		t.Errorf("copy from another DumpSource: %d bytes, want the %d of a *Reader", len(got), len(want))
	}
}
