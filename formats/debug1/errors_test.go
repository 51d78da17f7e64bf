package debug1

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// TestParseErrorUnwrapsDebug1Causes breaks the labels and a frame line of
// a real debug=1 profile: the warnings wrap the parser's errors.
func TestParseErrorUnwrapsDebug1Causes(t *testing.T) {
	data, err := os.ReadFile("../../testdata/debug1/go1.26.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var labels, frame int
	for i, l := range lines {
		switch {
		case labels == 0 && strings.HasPrefix(l, "# labels: {"):
			labels = i
		case frame == 0 && strings.HasPrefix(l, "#\t0x"):
			frame = i
		}
	}
	if labels == 0 || frame == 0 {
		t.Fatal("the profile has no labels or frame line to break")
	}
	lines[labels] = strings.Replace(lines[labels], "{", "[", 1)
	lines[frame] = strings.Replace(lines[frame], "0x", "", 1)
	ws := dumptest.Warnings(t, NewReader(strings.NewReader(strings.Join(lines, "\n")), ReadOptions{}))
	for _, want := range []struct {
		line  int
		cause error
	}{{labels + 1, errDebug1Labels}, {frame + 1, errDebug1PC}} {
		var ok bool
		for _, w := range ws {
			var pe *stack.ParseError
			if errors.As(w, &pe) && pe.Line == want.line {
				ok = true
				if !errors.Is(w, want.cause) {
					t.Errorf("line %d: warning %v does not wrap %v", want.line, w, want.cause)
				}
			}
		}
		if !ok {
			t.Errorf("no warning on line %d among %v", want.line, ws)
		}
	}
}
