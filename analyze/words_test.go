package analyze

import (
	"bytes"
	"regexp"
	"testing"
)

// One goroutine is "1 goroutine in 1 group", never "1 goroutines".
func TestTextSingularCounts(t *testing.T) {
	s := summarizeFile(t, "../go/nilderef_go126.txt", Options{})
	var b bytes.Buffer
	if err := WriteText(&b, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("\n1 goroutine in 1 group: 1 running\n")) {
		t.Errorf("headline of one goroutine:\n%s", b.String())
	}
	if m := regexp.MustCompile(`\b1 (goroutines|groups|threads|minutes)\b`).Find(b.Bytes()); m != nil {
		t.Errorf("%q in:\n%s", m, b.String())
	}
}
