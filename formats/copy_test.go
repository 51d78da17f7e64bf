package formats

import (
	"bytes"
	"iter"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
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

// TestCopyReusesRoutines checks that Copy, which reads with
// ReuseRoutines, writes every format exactly as WriteDump does with
// routines read by ReadAll: no encoder keeps a routine it was handed.
func TestCopyReusesRoutines(t *testing.T) {
	inputs := map[string][]byte{"generated": dumptest.TracebackBytes(500)}
	for _, path := range dumptest.GoTextFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(path)] = data
	}
	for _, f := range output.Formats() {
		for name, data := range inputs {
			var want, got bytes.Buffer
			tab := stack.NewTable()
			dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{Table: tab})
			if err != nil {
				t.Fatal(err)
			}
			if (f == output.Pprof || f == output.Folded) && len(dumps) > 1 {
				continue // a profile or folded stacks hold one dump
			}
			enc, err := NewEncoder(&want, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range dumps {
				if err := stack.WriteDump(enc, d); err != nil {
					t.Fatalf("%s %s: WriteDump: %v", f, name, err)
				}
			}
			enc, _ = NewEncoder(&got, f)
			rd := NewReader(bytes.NewReader(data), ReadOptions{Table: tab})
			n, err := Copy(enc, rd, nil)
			if err != nil || n != len(dumps) {
				t.Fatalf("%s %s: Copy wrote %d dumps (%v), want %d", f, name, n, err, len(dumps))
			}
			if !rd.opts.ReuseRoutines {
				t.Fatalf("Copy did not reuse routines")
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s %s: Copy output differs from WriteDump(ReadAll):\n%s", f, name, dumptest.FirstDiff(want.String(), got.String()))
			}
		}
	}
}
