package stack_test

import (
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// TestTableStackElision interns the same frames with different elisions:
// the zero Elision is a whole stack, an elision with an unknown count at
// index 0 is not, and each elision comes back on the Stack it interned.
func TestTableStackElision(t *testing.T) {
	tab := stack.NewTable()
	fs := []*stack.Frame{tab.Frame(stack.Frame{Func: "main.a", File: "/a.go", Line: 1}), tab.Frame(stack.Frame{Func: "main.b", File: "/b.go", Line: 2})}
	cases := []stack.Elision{{}, {Elided: true}, {Elided: true, At: 2}, {Elided: true, Count: 50, At: 1}, {Elided: true, Count: 70, At: 1}}
	seen := map[*stack.Stack]stack.Elision{}
	for _, e := range cases {
		s := tab.Stack(fs, e)
		if got := (stack.Elision{Elided: s.Elided, Count: s.ElidedCount, At: s.ElidedAt}); got != e {
			t.Errorf("Stack(%+v) holds %+v", e, got)
		}
		if prev, ok := seen[s]; ok {
			t.Errorf("Stack(%+v) is the stack of %+v", e, prev)
		}
		seen[s] = e
		if again := tab.Stack(fs, e); again != s {
			t.Errorf("Stack(%+v) twice: two stacks", e)
		}
	}
}
