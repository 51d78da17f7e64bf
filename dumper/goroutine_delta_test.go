package dumper

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/internal/profilepb"
)

// deltaRecvInlined is inlined into deltaWait: its location has two lines.
func deltaRecvInlined(c chan struct{}) { <-c }

//go:noinline
func deltaWait(c chan struct{}) { deltaRecvInlined(c) }

// TestGoroutineDeltaMatchesMerge takes real goroutine profiles before and
// after goroutines came and went (some stacks fewer, some new, labelled
// ones that cancel out) and checks that goroutineDelta gives what
// net/http/pprof's profile.Merge of before scaled by -1 and after gives:
// the same samples in the same order, the same locations, functions and
// mappings, the same header; and that google/pprof/profile reads what
// Marshal writes of it.
func TestGoroutineDeltaMatchesMerge(t *testing.T) {
	first := startFixture(t, 4)
	before := goroutineProfileBytes(t)
	first.Stop()
	startFixture(t, 2)
	c := make(chan struct{})
	defer close(c)
	for range 3 {
		go pprof.Do(context.Background(), pprof.Labels("delta", "new"), func(context.Context) { deltaWait(c) })
	}
	waitFixtureParked(t, 2*len(fixtureKinds))
	after := goroutineProfileBytes(t)

	ours0, err := collectFrom(before, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ours1, err := collectFrom(after, 3000)
	if err != nil {
		t.Fatal(err)
	}
	delta, err := goroutineDelta(ours0, ours1)
	if err != nil {
		t.Fatal(err)
	}

	theirs0, err := profile.ParseData(before)
	if err != nil {
		t.Fatal(err)
	}
	theirs1, err := profile.ParseData(after)
	if err != nil {
		t.Fatal(err)
	}
	theirs0.TimeNanos, theirs1.TimeNanos = 1000, 3000
	theirs0.Scale(-1)
	merged, err := profile.Merge([]*profile.Profile{theirs0, theirs1})
	if err != nil {
		t.Fatal(err)
	}

	checkSameDelta(t, delta, merged)
	t.Logf("delta: %d samples, %d locations, %d functions, %d mappings", len(delta.Sample), len(delta.Location), len(delta.Function), len(delta.Mapping))
	negative, cancelled := false, false
	for _, s := range delta.Sample {
		negative = negative || s.Value[0] < 0
	}
	for _, s := range ours0.Sample {
		for _, l := range s.Label {
			cancelled = cancelled || l.Key == "i" && l.Str == "0"
		}
	}
	for _, s := range delta.Sample {
		for _, l := range s.Label {
			if l.Key == "i" && (l.Str == "0" || l.Str == "1") {
				t.Errorf("sample with label i=%s kept: it is in both profiles", l.Str)
			}
		}
	}
	if !negative || !cancelled {
		t.Errorf("the profiles do not cover the case: negative samples %v, cancelled ones %v", negative, cancelled)
	}

	written, err := profile.ParseData(delta.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if err := written.CheckValid(); err != nil {
		t.Fatal(err)
	}
	checkSameDelta(t, delta, written)
}

// goroutineProfileBytes returns runtime/pprof's goroutine profile,
// gzipped.
func goroutineProfileBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// collectFrom decodes a gzipped profile as collectProfile does, stamped
// at nanos.
func collectFrom(gz []byte, nanos int64) (*profilepb.Profile, error) {
	pb, err := gunzipProfile(gz)
	if err != nil {
		return nil, err
	}
	p, err := profilepb.Decode(pb)
	if err != nil {
		return nil, err
	}
	p.TimeNanos = nanos
	return p, nil
}

// checkSameDelta compares a profilepb profile with a google/pprof one
// field by field, ids included.
func checkSameDelta(t *testing.T, ours *profilepb.Profile, theirs *profile.Profile) {
	t.Helper()
	oh := fmt.Sprint(ours.SampleType, ours.PeriodType, ours.Period, ours.Comments, ours.DefaultSampleType, ours.DocURL,
		ours.DropFrames, ours.KeepFrames, ours.TimeNanos, ours.DurationNanos)
	var types []profilepb.ValueType
	for _, st := range theirs.SampleType {
		types = append(types, profilepb.ValueType{Type: st.Type, Unit: st.Unit})
	}
	th := fmt.Sprint(types, profilepb.ValueType{Type: theirs.PeriodType.Type, Unit: theirs.PeriodType.Unit}, theirs.Period, theirs.Comments,
		theirs.DefaultSampleType, theirs.DocURL, theirs.DropFrames, theirs.KeepFrames, theirs.TimeNanos, theirs.DurationNanos)
	if oh != th {
		t.Errorf("header %s, want %s", oh, th)
	}
	var om, tm []string
	for _, m := range ours.Mapping {
		om = append(om, fmt.Sprint(m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames))
	}
	for _, m := range theirs.Mapping {
		tm = append(tm, fmt.Sprint(m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames))
	}
	if !slices.Equal(om, tm) {
		t.Errorf("mappings\n %q\nwant\n %q", om, tm)
	}
	var of, tf []string
	for _, f := range ours.Function {
		of = append(of, fmt.Sprint(f.ID, f.Name, f.SystemName, f.Filename, f.StartLine))
	}
	for _, f := range theirs.Function {
		tf = append(tf, fmt.Sprint(f.ID, f.Name, f.SystemName, f.Filename, f.StartLine))
	}
	if !slices.Equal(of, tf) {
		t.Errorf("functions\n %q\nwant\n %q", of, tf)
	}
	var ol, tl []string
	for _, l := range ours.Location {
		var b strings.Builder
		mapping := uint64(0)
		if l.Mapping != nil {
			mapping = l.Mapping.ID
		}
		fmt.Fprint(&b, l.ID, mapping, l.Address, l.IsFolded)
		for _, ln := range l.Line {
			fmt.Fprint(&b, " |", ln.Function.ID, ln.Line, ln.Column)
		}
		ol = append(ol, b.String())
	}
	for _, l := range theirs.Location {
		var b strings.Builder
		mapping := uint64(0)
		if l.Mapping != nil {
			mapping = l.Mapping.ID
		}
		fmt.Fprint(&b, l.ID, mapping, l.Address, l.IsFolded)
		for _, ln := range l.Line {
			fmt.Fprint(&b, " |", ln.Function.ID, ln.Line, ln.Column)
		}
		tl = append(tl, b.String())
	}
	if !slices.Equal(ol, tl) {
		t.Errorf("locations\n %q\nwant\n %q", ol, tl)
	}
	if len(ours.Sample) != len(theirs.Sample) {
		t.Fatalf("%d samples, want %d", len(ours.Sample), len(theirs.Sample))
	}
	for i, s := range ours.Sample {
		ts := theirs.Sample[i]
		var ids, tids []uint64
		for _, l := range s.Location {
			ids = append(ids, l.ID)
		}
		for _, l := range ts.Location {
			tids = append(tids, l.ID)
		}
		labels := map[string][]string{}
		for _, l := range s.Label {
			labels[l.Key] = append(labels[l.Key], l.Str)
		}
		tlabels := map[string][]string{}
		for k, v := range ts.Label {
			tlabels[k] = v
		}
		if !slices.Equal(ids, tids) || !slices.Equal(s.Value, ts.Value) || !reflect.DeepEqual(labels, tlabels) || len(ts.NumLabel) != 0 {
			t.Errorf("sample %d: %v %v %v, want %v %v %v %v", i, ids, s.Value, labels, tids, ts.Value, ts.Label, ts.NumLabel)
		}
	}
}
