package analyze

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// TestTruncatedMidLine cuts a real panic dump inside a file line of one of
// its goroutines (as a copy of a growing log would) and checks that
// analyze says TRUNCATED, in text and JSON.
func TestTruncatedMidLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", "panic_go127.txt"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("\ngoroutine 21 "))
	if at < 0 {
		t.Fatal("fixture changed: no goroutine 21")
	}
	file := bytes.Index(data[at:], []byte("\n\t/")) + at
	cut := data[:file+len("\n\t/wo")] // `\t/wo` with no newline
	rd := formats.NewReaderBytes(cut, formats.ReadOptions{})
	s, _, err := SummarizeNext(rd, StreamOptions{Name: "cut.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SummarizeNext(rd, StreamOptions{}); err != io.EOF {
		t.Fatalf("a second dump: %v", err)
	}
	if !s.Truncated {
		t.Fatal("summary not truncated")
	}
	var text bytes.Buffer
	WriteText(&text, s, TextOptions{})
	if !strings.Contains(text.String(), "TRUNCATED") {
		t.Errorf("text does not say TRUNCATED:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dumps []struct {
			Truncated bool `json:"truncated"`
		} `json:"dumps"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Dumps) != 1 || !doc.Dumps[0].Truncated {
		t.Errorf("JSON does not say truncated:\n%s", js.String())
	}
}
