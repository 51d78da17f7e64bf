package report

import (
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// The report of a real jstack dump counts the VM-internal threads, which
// HotSpot prints without a state, under stack.StateVMThread: the states of
// every group add up to its count.
func TestReportCountsVMThreads(t *testing.T) {
	doc := pageData(t, writeReport(t, readCorpus(t, "corpus/jvm/local_jdk17.0.15-jstack-l-deadlocks.txt"), Options{}))
	in := doc.Inputs[0]
	var vm, total int64
	for _, g := range in.Groups {
		var n int64
		for _, s := range g.States {
			n += s.Count
			if s.State == stack.StateVMThread {
				vm += s.Count
			}
		}
		if n != g.Count {
			t.Errorf("group %s: states %+v add up to %d of %d", g.Key, g.States, n, g.Count)
		}
		total += g.Count
	}
	if vm != 7 || total != in.Total || in.Total != 31 {
		t.Errorf("%d VM threads, groups hold %d of %d threads; want 7 of 31", vm, total, in.Total)
	}
}

// In a JDK 5 dump only some threads have a state: the group of 6
// stackless threads holds 2 VM threads and 4 without a state. Its row
// says "VM thread 2", not "VM thread" as if all 6 were.
func TestBrowserGroupWithStatelessMembers(t *testing.T) {
	page := writeReport(t, readCorpus(t, "corpus/jvm/tda_jdk15_log_with_histogram.log"), Options{})
	dom := findBrowser(t).load(t, page, "", "")
	if !strings.Contains(dom, `class="chip state" title="2 VM thread">VM thread 2<`) {
		t.Errorf("the group of 6 has no chip saying 2 of them are VM threads")
	}
	if strings.Contains(dom, `title="2 VM thread">VM thread<`) {
		t.Errorf("a chip names a group after its 2 VM threads alone")
	}
}
