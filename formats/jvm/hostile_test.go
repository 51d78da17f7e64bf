package jvm_test

import (
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/jvm"
)

// TestJVMLongLineWarningText reads a JVM dump with a line limit under 80
// bytes: the warning about a long line quotes that line only, never the
// lines after it or stale bytes of the read buffer.
func TestJVMLongLineWarningText(t *testing.T) {
	long := "\tat Main.main(Main.java:3)" + strings.Repeat("x", 24)
	in := "\"m\" #1 prio=5 runnable\n   java.lang.Thread.State: RUNNABLE\n" + long + "\nNEXT-LINE\n\n"
	dumps, err := readText(strings.NewReader(in), jvm.ReadOptions{MaxLineBytes: 40})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%d dumps, %v", len(dumps), err)
	}
	var found bool
	for _, w := range dumps[0].Warnings {
		if w.Line == 3 {
			found = true
			if w.Text != long {
				t.Errorf("warning text %q, want the long line %q", w.Text, long)
			}
		}
	}
	if !found {
		t.Errorf("no warning for line 3: %v", dumps[0].Warnings)
	}
}
