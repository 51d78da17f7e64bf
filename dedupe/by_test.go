package dedupe

import (
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// TestByNone checks the zero By: named "none", not a level ParseBy
// accepts, and grouping as ByStack where grouping is asked for.
func TestByNone(t *testing.T) {
	var zero By
	if zero != ByNone || ByNone.String() != "none" {
		t.Fatalf("zero By is %v, want none", zero)
	}
	for _, b := range Levels() {
		if b == ByNone {
			t.Errorf("Levels lists ByNone")
		}
	}
	if _, err := ParseBy("none"); err == nil {
		t.Errorf("ParseBy(none) succeeded")
	}
	if b, err := ParseBy(""); err != nil || b != ByStack {
		t.Errorf("ParseBy(\"\") = %v, %v; want stack", b, err)
	}
	r := sampleRoutine(stack.NewTable())
	if a, b := keyOf(r, Options{}), keyOf(r, Options{By: ByStack}); a != b {
		t.Errorf("Options{} key %s, ByStack key %s: want equal", a, b)
	}
	if a, b := keyOf(r, Options{}), keyOf(r, Options{By: ByExact}); a == b {
		t.Errorf("Options{} grouped as ByExact (key %s)", a)
	}
}
