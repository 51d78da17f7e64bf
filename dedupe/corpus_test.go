package dedupe

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

const corpusDir = "../testdata/corpus"

func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// panicweb's debug=2 dump: 71 goroutines over 11 call sites. The counts
// were found apart from stackdump, by a short script that splits the file
// into goroutines and compares their function/file:line lists (runtime
// frames left out).
func TestCorpusPanicwebGroups(t *testing.T) {
	data := readCorpus(t, "go/panicparse_panicweb_debug2.txt")
	want := []int64{14, 13, 13, 13, 10, 3, 1, 1, 1, 1, 1}
	for _, by := range []By{ByStack, ByFunc} {
		d, groups := readGroups(t, data, Options{By: by})
		var counts []int64
		for _, g := range groups {
			counts = append(counts, g.Count)
		}
		if !slices.Equal(counts, want) {
			t.Errorf("%s: group counts %v, want %v", by, counts, want)
		}
		if d.Total != 71 || sumCounts(groups) != 71 {
			t.Errorf("%s: dump total %d, groups sum %d; want 71", by, d.Total, sumCounts(groups))
		}
	}
	_, exact := readGroups(t, data, Options{By: ByExact})
	if len(exact) <= 11 {
		t.Errorf("exact: %d groups; arguments and states should split the 11 call sites", len(exact))
	}
}

// The debug=1 and debug=2 profiles of profiler-notes example 1 were taken
// one after the other from one Go 1.15 process: 6 goroutines each. Only the
// goroutine writing the profile differs (it ran different code for each).
func TestCorpusDebug1MatchesDebug2(t *testing.T) {
	_, g2 := readGroups(t, readCorpus(t, "go/profilernotes_1.pprof.lookup.goroutine.debug2.txt"), Options{})
	_, g1 := readGroups(t, readCorpus(t, "go/profilernotes_1.pprof.lookup.goroutine.debug1.txt"), Options{})
	res := Diff(g2, g1)
	if res.OldTotal != 6 || res.NewTotal != 6 || res.Unchanged != 4 {
		t.Errorf("totals %d → %d, %d unchanged; want 6 → 6, 4 unchanged", res.OldTotal, res.NewTotal, res.Unchanged)
	}
	var changes []string
	for _, e := range res.Entries {
		changes = append(changes, string(e.Change)+" "+TopFrame(e.Group.Sample.Stack).Func)
	}
	slices.Sort(changes)
	want := []string{"gone runtime/pprof.writeGoroutineStacks", "new runtime/pprof.runtime_goroutineProfileWithLabels"}
	if !slices.Equal(changes, want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	short := parkGroupByFunc(g1, "main.shortSleepLoop")
	if short == nil || short.Count != 2 || len(short.Labels) != 1 || short.Labels[0].Count != 2 {
		t.Errorf("debug=1 shortSleepLoop group %+v; want 2 members labelled test_label", short)
	}
}

func parkGroupByFunc(groups []*stack.Group, fn string) *stack.Group {
	for _, g := range groups {
		for _, f := range g.Sample.Frames() {
			if f.Func == fn {
				return g
			}
		}
	}
	return nil
}

// Every Go dump of the corpus: group counts sum to the dump's total, at
// every level, and shuffling the routines changes nothing.
func TestCorpusGroupingInvariants(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "README.md") || isDir(path) {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dumps, err := formats.ReadAll(f, formats.ReadOptions{})
			if err != nil && len(dumps) == 0 {
				t.Fatal(err)
			}
			for _, d := range dumps {
				for _, by := range Levels() {
					opts := Options{By: by}
					groups := Group(d, opts)
					if got := sumCounts(groups); got != d.Total {
						t.Errorf("%s: groups sum to %d, dump total %d", by, got, d.Total)
					}
					if len(groups) > len(d.Routines) {
						t.Errorf("%s: %d groups for %d routines", by, len(groups), len(d.Routines))
					}
					shuffled := slices.Clone(d.Routines)
					rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
					if again := Group(&stack.Dump{Routines: shuffled}, opts); !reflect.DeepEqual(again, groups) {
						t.Errorf("%s: shuffled routines grouped differently", by)
					}
				}
			}
		})
	}
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
