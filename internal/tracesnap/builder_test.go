package tracesnap

import (
	"testing"

	"github.com/stackdump/stackdump/stack"
)

func TestBuilderRoutineStack(t *testing.T) {
	for _, name := range []string{"go126.trace", "go127-long.trace"} {
		data := readFixture(t, name)
		rd, err := NewReaderBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder(BuildOptions{Version: Version})
		if err := b.ReadAll(rd); err != nil {
			t.Fatal(err)
		}
		n := b.Finish()
		stale := 0
		var r stack.Routine
		for i := range n {
			b.Routine(i, &r)
			st, s := b.RoutineStack(i)
			if st != r.Stack || s != r.Stale {
				t.Errorf("%s: goroutine %d: RoutineStack says %p stale %v, Routine %p stale %v", name, r.ID, st, s, r.Stack, r.Stale)
			}
			if s {
				stale++
			}
		}
		if n < 20 || stale == 0 {
			t.Errorf("%s: %d goroutines, %d stale: want a fixture with both kinds", name, n, stale)
		}
	}
}
