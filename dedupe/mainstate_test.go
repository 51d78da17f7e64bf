package dedupe

import (
	"testing"
)

// TestMainStateCountsStatelessMembers groups a real JDK 5 thread dump in
// which only some threads carry a state: the 6 threads without a Java
// stack share one group, 2 of them "VM thread" and 4 with no state. The
// group's main state is none (""), not "VM thread": a table row saying
// "6 VM thread" would name a state 4 of them never had. Every group whose
// members all have a state keeps its most common one. (ByExact puts
// members of different states in different groups.)
func TestMainStateCountsStatelessMembers(t *testing.T) {
	data := readCorpus(t, "jvm/tda_jdk15_log_with_histogram.log")
	for _, by := range []By{ByStack, ByFunc} {
		_, groups := readGroups(t, data, Options{By: by})
		seen := false
		for _, g := range groups {
			var stated int64
			for _, n := range g.States {
				stated += n
			}
			got := MainState(g)
			switch {
			case stated*2 < g.Count:
				seen = seen || stated > 0
				if got != "" {
					t.Errorf("by %s: group of %d with states %v: main state %q, want none", by, g.Count, g.States, got)
				}
			case stated == g.Count && len(g.States) == 1:
				for s := range g.States {
					if got != s {
						t.Errorf("by %s: group of %d with states %v: main state %q, want %q", by, g.Count, g.States, got, s)
					}
				}
			}
		}
		if !seen {
			t.Errorf("by %s: no group has members both with and without a state; the fixture changed", by)
		}
	}
}
