package pprof_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

// readCorpusDump reads the first dump of testdata/corpus/go/name.
func readCorpusDump(t *testing.T, name string) *stack.Dump {
	t.Helper()
	return doortest.ReadFirst(t, filepath.Join("..", "..", "testdata", "corpus", "go", name))
}

// sampleCounts sums a profile's goroutine counts by the values of the
// sample labels keys, joined by "|".
func sampleCounts(t *testing.T, pb []byte, keys ...string) map[string]int64 {
	t.Helper()
	p, err := profile.ParseData(pb)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range p.Sample {
		var vals []string
		for _, k := range keys {
			if len(s.Label[k]) != 1 {
				t.Fatalf("sample %v: label %q is %q; want one value", s.Location, k, s.Label[k])
			}
			vals = append(vals, s.Label[k][0])
		}
		got[strings.Join(vals, "|")] += s.Value[0]
	}
	return got
}

// expectedBucket is the documented bucket of a wait (docs/fleet.md).
func expectedBucket(minutes int) string {
	switch {
	case minutes >= 60:
		return ">=1h"
	case minutes >= 10:
		return "10-60m"
	case minutes >= 1:
		return "1-10m"
	}
	return "<1m"
}

// TestPprofWaitLabels writes a real debug=2 dump whose goroutines waited
// 2 minutes (panicparse's panicweb server) as pprof: every sample has a
// state and a wait bucket label, the counts per (state, bucket) are the
// dump's, and reading the profile back gives each goroutine the least
// minutes of its bucket, which writes the same labels again.
func TestPprofWaitLabels(t *testing.T) {
	d := readCorpusDump(t, "panicparse_panicweb_debug2.txt")
	// The runtime's waits in this dump are 0 or 2 minutes; give a few
	// goroutines waits at the bucket edges too.
	edges := []int{1, 9, 10, 59, 60, 600}
	for i, m := range edges {
		d.Routines[i].WaitMinutes = m
	}
	want := map[string]int64{}
	for _, r := range d.Routines {
		want[r.State+"|"+expectedBucket(r.WaitMinutes)] += r.Goroutines()
	}
	if len(want) < 6 {
		t.Fatalf("the dump should have several states and buckets: %v", want)
	}
	out := dumptest.Encode(t, pprof.NewEncoder, d)
	got := sampleCounts(t, out, "state", "wait")
	if !mapsEqual(got, want) {
		t.Errorf("(state, wait) counts\n got %v\nwant %v", got, want)
	}

	back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range back[0].Routines {
		if len(r.Labels) != 0 {
			t.Errorf("labels %v: the wait bucket is not a program label", r.Labels)
		}
		if !slices.Contains([]int{0, 1, 10, 60}, r.WaitMinutes) {
			t.Errorf("read back %d wait minutes; want a bucket's least", r.WaitMinutes)
		}
	}
	again := sampleCounts(t, dumptest.Encode(t, pprof.NewEncoder, back[0]), "state", "wait")
	if !mapsEqual(again, want) {
		t.Errorf("written again: %v, want %v", again, want)
	}
}

// Dumps without wait times get no wait label: a grouped capture (its
// Capture lists wait_minutes as missing), a debug=1 profile, a JVM dump.
func TestPprofNoWaitLabelWithoutWaits(t *testing.T) {
	grouped := readCorpusDump(t, "panicparse_panicweb_debug2.txt")
	for _, r := range grouped.Routines {
		r.WaitMinutes = 0
	}
	grouped.Source.Capture = &stack.Capture{Mode: "grouped", Missing: []string{"id", "state", "wait_minutes"}}
	jvm, err := os.ReadFile(filepath.Join("..", "..", "testdata", "jvm", "threadinfo_jdk17.0.15.txt"))
	if err != nil {
		t.Fatal(err)
	}
	jvmDumps, err := formats.ReadAll(bytes.NewReader(jvm), formats.ReadOptions{})
	if err != nil || len(jvmDumps) == 0 {
		t.Fatalf("jvm: %v", err)
	}
	for name, d := range map[string]*stack.Dump{"grouped": grouped, "jvm": jvmDumps[0]} {
		p, err := profile.ParseData(dumptest.Encode(t, pprof.NewEncoder, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sample {
			if _, ok := s.Label["wait"]; ok {
				t.Errorf("%s: sample has a wait label %v", name, s.Label)
			}
		}
		for _, c := range p.Comments {
			if strings.Contains(c, "wait-time bucket") {
				t.Errorf("%s: comment %q", name, c)
			}
		}
	}
}

// A program label named "wait" moves the buckets to "goroutine_wait".
func TestPprofWaitLabelNameTaken(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.FullDump(tab)
	d.Routines[0].Labels = tab.Labels(stack.Labels{{Key: "wait", Value: "mine"}})
	d.Routines[1].WaitMinutes = 12
	out := dumptest.Encode(t, pprof.NewEncoder, d)
	got := sampleCounts(t, out, "goroutine_wait")
	if got["10-60m"] != 1 || got["<1m"] != d.Total-1 {
		t.Errorf("goroutine_wait buckets %v", got)
	}
	back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, r := range back[0].Routines {
		if v, _ := r.Labels.Get("wait"); v == "mine" {
			mine++
		}
	}
	if mine != 1 {
		t.Errorf("the program's wait label was lost: %d routines carry it", mine)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
