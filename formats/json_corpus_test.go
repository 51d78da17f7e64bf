package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// readCorpusFile reads every dump of a file with the sniffing reader.
func readCorpusFile(t *testing.T, path string) []*stack.Dump {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := ReadAll(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dumps
}

// TestJSONRoundTripCorpus writes every JVM, debug=1 and pprof dump of the
// corpus as JSON and reads it back: every field survives, line numbers and
// warnings included.
func TestJSONRoundTripCorpus(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/jvm/*", "jvm/*.txt", "jvm/*.json", "jvm/*.log",
		"corpus/go/*debug1.txt", "corpus/go/*.pb.gz") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readCorpusFile(t, path)
			got := readJSON(t, writeJSON(t, want...), ReadOptions{})
			dumptest.EqualDumps(t, "JSON round trip", want, got, dumptest.DescribeOptions{Lines: true, Warnings: true})
		})
	}
}

// TestTextWriterJVMDumps writes JVM dumps as text: they go out as jstack
// text, which reads back as the same number of threads.
func TestTextWriterJVMDumps(t *testing.T) {
	for _, path := range dumptest.CorpusFiles(t, "corpus/jvm/*") {
		want := readCorpusFile(t, path)
		text := writeText(t, want...)
		got, err := ReadAll(bytes.NewReader([]byte(text)), ReadOptions{})
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
