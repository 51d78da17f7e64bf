package pprof_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

// TestPprofWriteParsesWithGooglePprof writes dumps with the encoder
// (internal/profilepb underneath) and reads the profiles with
// google/pprof/profile: valid, and the same goroutines by stack, state
// and labels as stackdump's reader gives back.
func TestPprofWriteParsesWithGooglePprof(t *testing.T) {
	for _, name := range []string{"panicparse_panicweb_debug2.txt", "profilernotes_1.pprof.lookup.goroutine.debug0.pb.gz"} {
		t.Run(name, func(t *testing.T) {
			d := readCorpusDump(t, name)
			pb := dumptest.Encode(t, pprof.NewEncoder, d)
			p, err := profile.ParseData(pb)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.CheckValid(); err != nil {
				t.Fatal(err)
			}
			theirs := map[string]int64{}
			for _, s := range p.Sample {
				var key []string
				for _, loc := range s.Location {
					for _, ln := range loc.Line {
						key = append(key, ln.Function.Name+":"+ln.Function.Filename)
					}
				}
				for _, k := range sortedKeys(s.Label) {
					key = append(key, k+"="+strings.Join(s.Label[k], ","))
				}
				theirs[strings.Join(key, " ")] += s.Value[0]
			}
			back, err := formats.ReadAll(bytes.NewReader(pb), formats.ReadOptions{Kind: stack.KindGoPprof})
			if err != nil || len(back) != 1 {
				t.Fatalf("%d dumps, %v", len(back), err)
			}
			ours := map[string]int64{}
			for _, r := range back[0].Routines {
				var key []string
				for _, f := range r.Frames() {
					key = append(key, f.Func+":"+f.File)
				}
				labels := map[string][]string{}
				for _, l := range r.Labels {
					labels[l.Key] = append(labels[l.Key], l.Value)
				}
				if r.State != "" {
					labels["state"] = append(labels["state"], r.State)
				}
				if w, ok := p.Sample[0].Label["wait"]; ok && len(w) > 0 {
					labels["wait"] = append(labels["wait"], waitBucketOf(r.WaitMinutes))
				}
				for _, k := range sortedKeys(labels) {
					key = append(key, k+"="+strings.Join(labels[k], ","))
				}
				ours[strings.Join(key, " ")] += r.Count
			}
			if len(ours) != len(theirs) {
				t.Errorf("%d groups, google/pprof/profile reads %d", len(ours), len(theirs))
			}
			for k, n := range theirs {
				if ours[k] != n {
					t.Errorf("%s: %d goroutines, google/pprof/profile reads %d", k, ours[k], n)
				}
			}
		})
	}
}

func sortedKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// waitBucketOf is the wait label of a routine read back: the bucket its
// least minutes start.
func waitBucketOf(minutes int) string { return expectedBucket(minutes) }
