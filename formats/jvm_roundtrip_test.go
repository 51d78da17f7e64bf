package formats

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// reHeaderLine drops routine header line numbers, which change when a
// dump is written again.
var reHeaderLine = regexp.MustCompile(` hdr=\d+`)

// encodeJVM writes dumps in jstack form.
func encodeJVM(t testing.TB, dumps []*Dump) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := newJVMTextEncoder(&out)
	for _, d := range dumps {
		if err := WriteDump(enc, d); err != nil {
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
			second, err := ReadAll(bytes.NewReader(text), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := reHeaderLine.ReplaceAllString(renderJVM(first), "")
			got := reHeaderLine.ReplaceAllString(renderJVM(second), "")
			if got != want {
				t.Errorf("round trip changed the model:\n%s", firstDiff(want, got))
				t.Logf("written:\n%s", text[:min(len(text), 3000)])
			}
			// Writing the re-read dumps gives the same bytes again.
			if again := encodeJVM(t, second); !bytes.Equal(again, text) {
				t.Errorf("second write differs:\n%s", firstDiff(string(text), string(again)))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + string(w) + "\ngot:  " + string(g)
		}
	}
	return "(no difference)"
}
