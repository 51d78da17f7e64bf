package analyze

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// statelessJVM are the corpus files whose format prints no thread states
// at all: JDK 5 dumps and Thread.dump_to_file before JDK 25.
var statelessJVM = []string{
	"intellij_jcmd_dump_to_file_json_jdk21_structured.json",
	"intellij_jcmd_dump_to_file_plain_jdk21.txt",
	"tda_hpux_jdk15_large.log",
	"tda_jcmd_threaddump_jdk21.json",
	"tda_jdk15_log_with_histogram.log",
}

// TestJVMStatesAddUp checks every JVM dump of the corpus: each thread has a
// state (VM-internal threads, carriers and mounted virtual threads, which
// HotSpot prints without one, get a named one), each group's states add up
// to its count, and the summary's state counts to its total, the VM threads
// included. Dumps whose format prints no states say so in Missing.
func TestJVMStatesAddUp(t *testing.T) {
	vmThreads := 0
	for _, path := range jvmFiles(t) {
		name := filepath.Base(path)
		stateless := slices.Contains(statelessJVM, name)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range readDumps(t, path) {
				for _, r := range d.Routines {
					if r.State == "" && !stateless {
						t.Errorf("thread %q (#%d, line %d) has no state", r.Name, r.ID, r.Line)
					}
					if r.Thread != nil && r.Thread.Native {
						vmThreads++
						if r.State != stack.StateVMThread {
							t.Errorf("VM thread %q has state %q", r.Name, r.State)
						}
					}
				}
			}
			rd := formats.NewReaderBytes(data, formats.ReadOptions{ReuseRoutines: true})
			for {
				s, groups, err := SummarizeNext(rd, StreamOptions{})
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range groups {
					var n int64
					for _, c := range g.States {
						n += c
					}
					if n != g.Count && !stateless {
						t.Errorf("group %s: states %v add up to %d of %d", g.Key, g.States, n, g.Count)
					}
				}
				sum := stateSum(s.States)
				switch {
				case stateless && s.Has("states"):
					t.Errorf("no states printed, but the summary does not say so: missing %v", s.Missing)
				case !stateless && sum != s.Total:
					t.Errorf("states %v add up to %d of %d threads", s.States, sum, s.Total)
				case !stateless && !s.Has("states"):
					t.Errorf("states all known, but missing %v", s.Missing)
				}
			}
		})
	}
	if vmThreads < 100 {
		t.Errorf("only %d VM threads in the corpus", vmThreads)
	}
}
