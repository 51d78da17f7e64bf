package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Item 7 of issue 22: a file holding dumps of two text forms (a debug=2
// dump then a debug=1 profile, a JVM dump then a Go dump, ...) reads both:
// the reader of the first form hands the rest on to the reader of the
// second. Real dumps glued by internal/paste.GlueWith.
func TestPasteTwoFormsInOneFile(t *testing.T) {
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	read := func(b []byte) []*stack.Dump {
		ds, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	for _, c := range []struct{ first, second string }{
		{"groups/debug2_go126.txt", "groups/debug1_go126.txt"},
		{"groups/debug1_go126.txt", "groups/debug2_go126.txt"},
		{"go/sigquit_go126.txt", "corpus/jvm/local_jdk17.0.15-jstack-plain.txt"},
		{"corpus/jvm/local_jdk17.0.15-jstack-plain.txt", "go/sigquit_go126.txt"},
		{"corpus/jvm/jthreaddump_deadlock_jdk25.txt", "debug1/go1.26.8.txt"},
	} {
		first, second := file(c.first), file(c.second)
		glued := paste.GlueWith("second", second).Apply(first, 1)
		want := append(read(first), read(second)...)
		got := read(glued)
		for _, d := range got {
			d.Warnings = nil // line numbers of the second dump move
		}
		for _, d := range want {
			d.Warnings = nil
		}
		dumptest.EqualDumps(t, c.first+" + "+c.second, want, got, dumptest.DescribeOptions{})
	}
}

// Item 11: the grouped text of a JVM dump names a thread that is alone in
// its group and says "no state" rather than "[]".
func TestPasteGroupedTextNamesThreads(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "jvm", "tda_jdk6_server.log"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := formats.WriteGroups(&text, output.Text, ds[0], dedupe.Group(ds[0], dedupe.Options{})); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if strings.Contains(out, " []") || !strings.Contains(out, `1 thread "`) {
		t.Errorf("grouped text:\n%s", out[:min(len(out), 1500)])
	}
}
