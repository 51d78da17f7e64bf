package formats_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// TestOverlongLineRule checks the one overlong-line rule of the text
// readers on real dumps (Go traceback, debug=1, JVM text): a line longer
// than MaxLineBytes, put between two records, is skipped with one warning
// naming its line and byte offset and quoting its first bytes, and reading
// goes on: every routine of the dump is still read. The long line is once
// just over the limit and once longer than the read buffer. A door test
// across three codecs; the line reader itself is tested in
// formats/internal/codec.
func TestOverlongLineRule(t *testing.T) {
	files := []struct {
		path string
		kind stack.Kind
	}{
		{"../testdata/go/debug2_go126.txt", stack.KindGoTraceback},
		{"../testdata/debug1/go1.26.8.txt", stack.KindGoDebug1},
		{"../testdata/corpus/jvm/local_jdk17.0.15-jstack-plain.txt", stack.KindJVMText},
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			longest = max(longest, len(l))
		}
		limit := longest + 1 // every real line fits
		opts := formats.ReadOptions{Kind: f.kind, MaxLineBytes: limit}
		want := readRoutines(t, data, opts)
		// Put the long line after the first blank line past the middle.
		at := len(data)/2 + bytes.Index(data[len(data)/2:], []byte("\n\n")) + 2
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		for _, n := range []int{limit + 1, 1 << 18} {
			long := strings.Repeat("overlong log output ", n/20+1)[:n]
			in := append(append(append([]byte(nil), data[:at]...), long+"\n"...), data[at:]...)
			dumps, err := formats.ReadAll(bytes.NewReader(in), opts)
			if err != nil {
				t.Fatalf("%s, %d bytes: %v", f.path, n, err)
			}
			var got int64
			var warned []*stack.ParseError
			for _, d := range dumps {
				for _, r := range d.Routines {
					got += r.Count
				}
				for _, w := range d.Warnings {
					if w.Line == line {
						warned = append(warned, w)
					}
				}
			}
			if got != want {
				t.Errorf("%s, %d bytes: %d routines read, want %d: reading did not go on", f.path, n, got, want)
			}
			if len(warned) != 1 {
				t.Fatalf("%s, %d bytes: %d warnings on line %d, want 1", f.path, n, len(warned), line)
			}
			w := warned[0]
			if w.Offset != int64(at) || w.Text == "" || !strings.HasPrefix(long, w.Text) || !strings.Contains(w.Msg, "skipped") {
				t.Errorf("%s, %d bytes: warning %+v; want offset %d quoting the line's head", f.path, n, w, at)
			}
		}
	}
}

// readRoutines reads data and returns the sum of its routines' counts.
func readRoutines(t *testing.T, data []byte, opts formats.ReadOptions) int64 {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(data), opts)
	if err != nil || len(dumps) == 0 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	var n int64
	for _, d := range dumps {
		for _, r := range d.Routines {
			n += r.Count
		}
	}
	return n
}
