package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// Item 11 of issue 22: labels that read wrong on real dumps.

func analyzeText(t *testing.T, b []byte) string {
	t.Helper()
	dumps, err := formats.ReadAll(bytes.NewReader(b), formats.ReadOptions{})
	if err != nil || len(dumps) == 0 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	var out bytes.Buffer
	if err := WriteText(&out, Summarize(dumps[0], nil, Options{}), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A group whose members are in several states is named by all of them
// (jstack's VM threads and the RUNNABLE Java threads with no frames share
// the empty stack), and jstack's time is the host's local time, not UTC.
func TestLabelsMixedGroupAndLocalTime(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "jvm", "local_jdk17.0.15-jstack-plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := analyzeText(t, data)
	if !strings.Contains(out, "8 RUNNABLE, 7 VM thread") {
		t.Errorf("the empty-stack group is not named by its states:\n%s", out)
	}
	if !strings.Contains(out, "2026-11-30 10:15:40 (local time)") || strings.Contains(out, "UTC") {
		t.Errorf("jstack's local time:\n%s", out)
	}
}

// A crashed goroutine whose frames were cut off (a real panic dump cut
// right after its header) has no frames in the dump, not "only runtime
// frames".
func TestLabelsCrashWithoutFrames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "go", "nested_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("goroutine 1 ["))
	cut := data[:at+bytes.IndexByte(data[at:], '\n')+1]
	out := analyzeText(t, cut)
	if !strings.Contains(out, "(no frames in the dump)") || strings.Contains(out, "only runtime frames") {
		t.Errorf("crash without frames:\n%s", out)
	}
}
