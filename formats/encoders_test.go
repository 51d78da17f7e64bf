package formats

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// TestTextWriterJVMDumps writes JVM dumps as text: they go out as jstack
// text, which reads back as the same number of threads.
func TestTextWriterJVMDumps(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/jvm/*") {
		want := readCorpusFile(t, path)
		text := encodeAs(t, output.Text, want...)
		got, err := ReadAll(bytes.NewReader(text), ReadOptions{})
		if err != nil {
			t.Fatalf("%s: reading our text: %v", path, err)
		}
		count := func(ds []*stack.Dump) (n int) {
			for _, d := range ds {
				n += len(d.Routines)
			}
			return n
		}
		if count(got) != count(want) || got[0].Source.Kind != stack.KindJVMText {
			t.Errorf("%s: %d threads in %d dumps (%s) read back from our text, want %d", path, count(got), len(got), got[0].Source.Kind, count(want))
		}
	}
}

// errWriter fails every write after the first n bytes.
type errWriter struct{ left int }

var errWrite = errors.New("disk full")

func (w *errWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errWrite
	}
	w.left -= len(p)
	return len(p), nil
}

func TestWritersReportWriteErrors(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	for _, f := range []output.Format{output.JSON, output.Text} {
		enc, err := NewEncoder(&errWriter{left: 10}, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := stack.WriteDump(enc, d); !errors.Is(err, errWrite) {
			t.Errorf("%s: WriteDump error = %v, want %v", f, err, errWrite)
		}
	}
	for _, f := range []output.Format{output.JSON, output.Text} {
		if err := WriteGroups(&errWriter{left: 10}, f, d, dumptest.Groups(tab, d)); !errors.Is(err, errWrite) {
			t.Errorf("%s groups: error = %v, want %v", f, err, errWrite)
		}
	}
}
