package gen

import (
	"bytes"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
)

// TestStackdumpReadsBack reads a modern dump with stackdump's reader and
// checks every goroutine and the generator's counts come back.
func TestStackdumpReadsBack(t *testing.T) {
	dump, st := Generate(Modern(3000, 11))
	rd := formats.NewReader(bytes.NewReader(dump), formats.ReadOptions{})
	d, err := rd.Next()
	skipIfPending(t, err)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	var (
		n, withGP, labelled, elided, minutes, locked int
		states                                       = map[string]int{}
	)
	for r, err := range rd.Routines() {
		if err != nil {
			skipIfPending(t, err)
			t.Fatalf("routine %d: %v", n, err)
		}
		n++
		states[r.State]++
		if r.HasGP {
			withGP++
		}
		if len(r.Labels) > 0 {
			labelled++
			if _, ok := r.Labels.Get("tenant"); !ok {
				t.Errorf("goroutine %d: labels %v lack tenant", r.ID, r.Labels)
			}
		}
		if r.Stack.Elided {
			elided++
			if r.Stack.ElidedCount <= 0 || len(r.Stack.Frames) != 100 {
				t.Errorf("goroutine %d: elided %d frames, %d printed", r.ID, r.Stack.ElidedCount, len(r.Stack.Frames))
			}
		}
		if r.WaitMinutes > 0 {
			minutes++
		}
		if r.Locked {
			locked++
		}
		if r.ID != 1 && r.ParentID == 0 {
			t.Errorf("goroutine %d: no parent id", r.ID)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after the dump: %v, want EOF", err)
	}
	if n != st.Goroutines || d.Total != int64(st.Goroutines) {
		t.Fatalf("read %d routines (Total %d), generated %d", n, d.Total, st.Goroutines)
	}
	if !maps.Equal(states, st.States) {
		t.Errorf("states %v, generated %v", states, st.States)
	}
	got := [5]int{withGP, labelled, elided, minutes, locked}
	want := [5]int{st.System, st.Labelled, st.Elided, st.WithMinutes, st.Locked}
	if got != want {
		t.Errorf("gp/labels/elided/minutes/locked = %v, generated %v", got, want)
	}
	if len(d.Warnings) > 0 {
		t.Errorf("%d warnings, first: %v", len(d.Warnings), d.Warnings[0])
	}
}

// skipIfPending skips while the Go text reader is still a placeholder
// (branch gotext), so that this module's tests pass before it lands.
func skipIfPending(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "not supported yet") {
		t.Skipf("stackdump's Go text reader has not landed: %v", err)
	}
}
