package dedupe

import "testing"

// TestStateLabel: a row is named after every state its members are in,
// never after the commonest alone (issue 22, item 11).
func TestStateLabel(t *testing.T) {
	for _, c := range []struct {
		states map[string]int64
		count  int64
		want   string
	}{
		{map[string]int64{"RUNNABLE": 3}, 3, "RUNNABLE"},
		{map[string]int64{"RUNNABLE": 2}, 3, "2 RUNNABLE, 1 no state"},
		{map[string]int64{"VM thread": 12, "RUNNABLE": 1}, 13, "12 VM thread, 1 RUNNABLE"},
		{map[string]int64{"b": 1, "a": 1}, 2, "1 a, 1 b"},
		{nil, 4, ""},
	} {
		if got := StateLabel(c.states, c.count); got != c.want {
			t.Errorf("StateLabel(%v, %d) = %q, want %q", c.states, c.count, got, c.want)
		}
	}
}
