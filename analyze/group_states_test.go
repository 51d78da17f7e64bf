package analyze

import (
	"bytes"
	"strings"
	"testing"
)

// TestGroupRowStatelessMembers summarises a real JDK 5 thread dump in
// which the 6 threads without a Java stack share a group, 2 of them in
// state "VM thread" and 4 without a state. The row names no state for the
// group (the text shows "-", not "6 VM thread"), and its states say how
// many members had one, so that the group's states add up to what the
// headline counts.
func TestGroupRowStatelessMembers(t *testing.T) {
	s := summarizeFile(t, "jvm/tda_jdk15_log_with_histogram.log", Options{Top: 100})
	var row *GroupRow
	for i := range s.TopGroups {
		if s.TopGroups[i].Count == 6 {
			row = &s.TopGroups[i]
		}
	}
	if row == nil {
		t.Fatalf("no group of 6 in %+v", s.TopGroups)
	}
	if row.State != "" || row.States["VM thread"] != 2 || len(row.States) != 1 {
		t.Errorf("group of 6: state %q, states %v; want none, and VM thread: 2", row.State, row.States)
	}
	var text bytes.Buffer
	if err := WriteText(&text, s, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(text.String()) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "6" && f[1] == "VM" {
			t.Errorf("text names the group of 6 after 2 of its threads: %q", line)
		}
	}
}
