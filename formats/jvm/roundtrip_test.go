package jvm_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

// reHeaderLine drops routine header line numbers, which change when a
// dump is written again.
var reHeaderLine = regexp.MustCompile(` hdr=\d+`)

// encodeJVM writes dumps in jstack form.
func encodeJVM(t testing.TB, dumps []*stack.Dump) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := jvm.NewEncoder(&out)
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestJVMTextRoundTrip reads every corpus JVM text file, writes it in
// jstack form, reads that again and expects the same model.
func TestJVMTextRoundTrip(t *testing.T) {
	for _, path := range jvmCorpusText(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			first := readJVMFile(t, path)
			text := encodeJVM(t, first)
			second, err := formats.ReadAll(bytes.NewReader(text), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := reHeaderLine.ReplaceAllString(renderJVM(first), "")
			got := reHeaderLine.ReplaceAllString(renderJVM(second), "")
			if got != want {
				t.Errorf("round trip changed the model:\n%s", dumptest.FirstDiff(want, got))
				t.Logf("written:\n%s", text[:min(len(text), 3000)])
			}
			// Writing the re-read dumps gives the same bytes again.
			if again := encodeJVM(t, second); !bytes.Equal(again, text) {
				t.Errorf("second write differs:\n%s", dumptest.FirstDiff(string(text), string(again)))
			}
		})
	}
}
