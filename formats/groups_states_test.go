package formats_test

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// stateCounts counts the members of d's routines per state ("" for
// members without one).
func stateCounts(d *stack.Dump) map[string]int64 {
	got := map[string]int64{}
	for _, r := range d.Routines {
		got[r.State] += r.Goroutines()
	}
	return got
}

// TestGroupsJSONStatelessMembersRoundTrip groups real JDK 5 thread dumps,
// where only some threads carry a state (the 6 threads without a Java
// stack share one group, 2 of them "VM thread", 4 with no state), writes
// the groups as JSON and reads them back: every state keeps its count and
// the members without a state stay without one, instead of being counted
// in the group's first state.
func TestGroupsJSONStatelessMembersRoundTrip(t *testing.T) {
	for _, name := range []string{
		"../testdata/corpus/jvm/tda_jdk15_log_with_histogram.log",
		"../testdata/corpus/jvm/tda_hpux_jdk15_large.log",
		"../testdata/corpus/go/gotfmt_sigabrt.txt",
	} {
		d := doortest.ReadFirst(t, name)
		want := stateCounts(d)
		if want[""] == 0 || len(want) < 2 {
			t.Fatalf("%s: states %v; want members with and without a state", name, want)
		}
		for _, by := range dedupe.Levels() {
			var doc bytes.Buffer
			if err := formats.WriteGroups(&doc, output.JSON, d, dedupe.Group(d, dedupe.Options{By: by})); err != nil {
				t.Fatal(err)
			}
			back, err := formats.ReadAll(bytes.NewReader(doc.Bytes()), formats.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := stateCounts(back[0]); !maps.Equal(got, want) {
				t.Errorf("%s by %s: read back, states %v; want %v", name, by, got, want)
			}
		}
	}
}

// The grouped text of the same JDK 5 dump gives the group of 6 stackless
// threads the histogram of its states, with the 4 that have none, instead
// of naming all 6 after the 2 VM threads ("6 threads [VM thread]").
func TestGroupsTextStatelessMembers(t *testing.T) {
	d := doortest.ReadFirst(t, "../testdata/corpus/jvm/tda_jdk15_log_with_histogram.log")
	var out bytes.Buffer
	if err := formats.WriteGroups(&out, output.Text, d, dedupe.Group(d, dedupe.Options{})); err != nil {
		t.Fatal(err)
	}
	const want = "6 threads [VM thread: 2, no state: 4]\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("grouped text has no %q:\n%s", want, out.String())
	}
}
