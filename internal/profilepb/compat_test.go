package profilepb_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/internal/profilepb"
)

// recvInlined is inlined into waitInlined: its location has two lines.
func recvInlined(c chan struct{}) { <-c }

//go:noinline
func waitInlined(c chan struct{}) { recvInlined(c) }

//go:noinline
func waitChan(c chan struct{}) { <-c }

//go:noinline
func waitMutex(mu *sync.Mutex) { mu.Lock(); mu.Unlock() }

//go:noinline
func waitLabelled(c chan struct{}) { <-c }

// goroutineProfile starts goroutines parked in several stacks, some of
// them labelled, one through an inlined frame, and returns
// runtime/pprof's goroutine profile, uncompressed, once they all show in
// it. The goroutines end with the test.
func goroutineProfile(t testing.TB) []byte {
	t.Helper()
	c := make(chan struct{})
	var mu sync.Mutex
	mu.Lock()
	t.Cleanup(func() { close(c); mu.Unlock() })
	for range 3 {
		go waitInlined(c)
		go waitChan(c)
		go waitMutex(&mu)
	}
	for i := range 4 {
		labels := pprof.Labels("worker", string(rune('a'+i%2)), "weird key", "a\"b\nc")
		go pprof.Do(context.Background(), labels, func(context.Context) { waitLabelled(c) })
	}
	for {
		pb := writeGoroutineProfile(t)
		p, err := profile.ParseUncompressed(pb)
		if err != nil {
			t.Fatal(err)
		}
		if countIn(p, "waitInlined") == 3 && countIn(p, "waitChan") == 3 && countIn(p, "waitMutex") == 3 && countIn(p, "waitLabelled") == 4 {
			return pb
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // until every goroutine has parked
	}
}

// writeGoroutineProfile returns the goroutine profile, uncompressed.
func writeGoroutineProfile(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	return gunzip(t, buf.Bytes())
}

func gunzip(t testing.TB, gz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// countIn counts the goroutines whose stack has a function named
// profilepb_test.fn.
func countIn(p *profile.Profile, fn string) int64 {
	var n int64
	for _, s := range p.Sample {
	locs:
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if strings.HasSuffix(ln.Function.Name, "profilepb_test."+fn) {
					n += s.Value[0]
					break locs
				}
			}
		}
	}
	return n
}

// checkSame fails t unless ours and theirs hold the same profile, field
// for field, ids included.
func checkSame(t *testing.T, ours *profilepb.Profile, theirs *profile.Profile) {
	t.Helper()
	type header struct {
		SampleType                                 []profilepb.ValueType
		DropFrames, KeepFrames                     string
		TimeNanos, DurationNanos, Period           int64
		PeriodType                                 profilepb.ValueType
		Comments                                   []string
		DefaultSampleType, DocURL                  string
		Samples, Mappings, Locations, FunctionsLen int
	}
	oh := header{ours.SampleType, ours.DropFrames, ours.KeepFrames, ours.TimeNanos, ours.DurationNanos, ours.Period,
		ours.PeriodType, ours.Comments, ours.DefaultSampleType, ours.DocURL,
		len(ours.Sample), len(ours.Mapping), len(ours.Location), len(ours.Function)}
	th := header{nil, theirs.DropFrames, theirs.KeepFrames, theirs.TimeNanos, theirs.DurationNanos, theirs.Period,
		profilepb.ValueType{}, theirs.Comments, theirs.DefaultSampleType, theirs.DocURL,
		len(theirs.Sample), len(theirs.Mapping), len(theirs.Location), len(theirs.Function)}
	for _, st := range theirs.SampleType {
		th.SampleType = append(th.SampleType, profilepb.ValueType{Type: st.Type, Unit: st.Unit})
	}
	if pt := theirs.PeriodType; pt != nil {
		th.PeriodType = profilepb.ValueType{Type: pt.Type, Unit: pt.Unit}
	}
	if !reflect.DeepEqual(oh, th) {
		t.Fatalf("header:\n ours   %+v\n theirs %+v", oh, th)
	}
	for i, m := range ours.Mapping {
		tm := theirs.Mapping[i]
		want := profilepb.Mapping{ID: tm.ID, Start: tm.Start, Limit: tm.Limit, Offset: tm.Offset, File: tm.File, BuildID: tm.BuildID,
			HasFunctions: tm.HasFunctions, HasFilenames: tm.HasFilenames, HasLineNumbers: tm.HasLineNumbers, HasInlineFrames: tm.HasInlineFrames}
		if *m != want {
			t.Errorf("mapping %d: %+v, want %+v", i, *m, want)
		}
	}
	for i, f := range ours.Function {
		tf := theirs.Function[i]
		want := profilepb.Function{ID: tf.ID, Name: tf.Name, SystemName: tf.SystemName, Filename: tf.Filename, StartLine: tf.StartLine}
		if *f != want {
			t.Errorf("function %d: %+v, want %+v", i, *f, want)
		}
	}
	for i, loc := range ours.Location {
		if got, want := locationText(loc), theirLocationText(theirs.Location[i]); got != want {
			t.Errorf("location %d: %s, want %s", i, got, want)
		}
	}
	for i, s := range ours.Sample {
		ts := theirs.Sample[i]
		var ids, tids []uint64
		for _, loc := range s.Location {
			ids = append(ids, loc.ID)
		}
		for _, loc := range ts.Location {
			tids = append(tids, loc.ID)
		}
		str, num, unit := labelMaps(s.Label)
		// google/pprof/profile before 2025-09 leaves an empty NumUnit
		// map where later versions leave nil: no units either way.
		tunit := ts.NumUnit
		if len(tunit) == 0 {
			tunit = nil
		}
		if !reflect.DeepEqual(ids, tids) || !reflect.DeepEqual(s.Value, ts.Value) ||
			!reflect.DeepEqual(str, ts.Label) || !reflect.DeepEqual(num, ts.NumLabel) || !reflect.DeepEqual(unit, tunit) {
			t.Errorf("sample %d:\n ours   %v %v %v %v %v\n theirs %v %v %v %v %v", i, ids, s.Value, str, num, unit, tids, ts.Value, ts.Label, ts.NumLabel, ts.NumUnit)
		}
	}
}

// labelMaps returns labels in google/pprof/profile's form: nil maps when
// empty, units padded to the numbers.
func labelMaps(ls []profilepb.Label) (map[string][]string, map[string][]int64, map[string][]string) {
	var str map[string][]string
	var num map[string][]int64
	var unit map[string][]string
	hasUnit := map[string]bool{}
	for _, l := range ls {
		if l.IsString() {
			if str == nil {
				str = map[string][]string{}
			}
			str[l.Key] = append(str[l.Key], l.Str)
			continue
		}
		if num == nil {
			num = map[string][]int64{}
			unit = map[string][]string{}
		}
		num[l.Key] = append(num[l.Key], l.Num)
		unit[l.Key] = append(unit[l.Key], l.NumUnit)
		hasUnit[l.Key] = hasUnit[l.Key] || l.NumUnit != ""
	}
	for k := range unit {
		if !hasUnit[k] {
			delete(unit, k)
		}
	}
	if len(unit) == 0 {
		unit = nil
	}
	return str, num, unit
}

func locationText(loc *profilepb.Location) string {
	var b strings.Builder
	mapping := uint64(0)
	if loc.Mapping != nil {
		mapping = loc.Mapping.ID
	}
	b.WriteString(strings.Join([]string{u(loc.ID), u(mapping), u(loc.Address), boolText(loc.IsFolded)}, " "))
	for _, ln := range loc.Line {
		b.WriteString(" | " + u(ln.Function.ID) + " " + i(ln.Line) + " " + i(ln.Column))
	}
	return b.String()
}

func theirLocationText(loc *profile.Location) string {
	var b strings.Builder
	mapping := uint64(0)
	if loc.Mapping != nil {
		mapping = loc.Mapping.ID
	}
	b.WriteString(strings.Join([]string{u(loc.ID), u(mapping), u(loc.Address), boolText(loc.IsFolded)}, " "))
	for _, ln := range loc.Line {
		b.WriteString(" | " + u(ln.Function.ID) + " " + i(ln.Line) + " " + i(ln.Column))
	}
	return b.String()
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
func i(v int64) string  { return strconv.FormatInt(v, 10) }
func boolText(b bool) string {
	if b {
		return "folded"
	}
	return "-"
}

// TestDecodeRuntimeProfiles decodes runtime/pprof goroutine profiles
// (labelled goroutines, several stacks, an inlined frame) and the
// testdata profiles with Decode and with profile.ParseUncompressed, and
// compares every field.
func TestDecodeRuntimeProfiles(t *testing.T) {
	inputs := map[string][]byte{"runtime": goroutineProfile(t), "numeric labels": numericLabelProfile(t)}
	files, _ := filepath.Glob("../../testdata/pprof/*.pb.gz")
	corpus, _ := filepath.Glob("../../testdata/corpus/go/*debug0.pb.gz")
	for _, name := range append(files, corpus...) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(name)] = gunzip(t, raw)
	}
	for name, pb := range inputs {
		t.Run(name, func(t *testing.T) {
			theirs, err := profile.ParseUncompressed(pb)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := profilepb.Decode(pb)
			if err != nil {
				t.Fatal(err)
			}
			checkSame(t, ours, theirs)
		})
	}
	// The runtime profile has what the comparison must cover.
	p, _ := profilepb.Decode(inputs["runtime"])
	inlined, labelled := false, false
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			inlined = inlined || len(loc.Line) > 1
		}
		labelled = labelled || len(s.Label) > 0
	}
	if !inlined || !labelled || len(p.Sample) < 5 {
		t.Errorf("runtime profile: inlined %v, labelled %v, %d samples", inlined, labelled, len(p.Sample))
	}
}

// TestMarshalParsesWithGooglePprof writes decoded profiles with Marshal
// and reads them back with profile.ParseData: valid and the same.
func TestMarshalParsesWithGooglePprof(t *testing.T) {
	for name, pb := range map[string][]byte{"runtime": goroutineProfile(t), "numeric labels": numericLabelProfile(t)} {
		t.Run(name, func(t *testing.T) {
			ours, err := profilepb.Decode(pb)
			if err != nil {
				t.Fatal(err)
			}
			out := ours.Marshal()
			theirs, err := profile.ParseData(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := theirs.CheckValid(); err != nil {
				t.Fatal(err)
			}
			checkSame(t, ours, theirs)
			back, err := profilepb.Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, ours) {
				t.Error("decoding what Marshal wrote gives another profile")
			}
		})
	}
}

// numericLabelProfile is a profile google/pprof/profile wrote with every
// field profilepb decodes: numeric labels with and without units,
// mappings, folded locations, columns, comments.
func numericLabelProfile(t testing.TB) []byte {
	t.Helper()
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x9000, Offset: 0x10, File: "/bin/x", BuildID: "abc", HasFunctions: true, HasLineNumbers: true}
	m2 := &profile.Mapping{ID: 7, Start: 0x10000, Limit: 0x20000, File: "libc.so", HasFilenames: true, HasInlineFrames: true}
	f1 := &profile.Function{ID: 1, Name: "main.a", SystemName: "main.a", Filename: "a.go", StartLine: 3}
	f2 := &profile.Function{ID: 5, Name: "main.b", SystemName: "_b", Filename: "b.go"}
	l1 := &profile.Location{ID: 1, Mapping: m, Address: 0x1234, Line: []profile.Line{{Function: f1, Line: 10, Column: 2}, {Function: f2, Line: 4}}}
	l2 := &profile.Location{ID: 9, Mapping: m2, Address: 0x10010, IsFolded: true, Line: []profile.Line{{Function: f2, Line: 7}}}
	l3 := &profile.Location{ID: 3, Address: 0x42}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "goroutine", Unit: "count"}, {Type: "bytes", Unit: "bytes"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2, l3}, Value: []int64{3, 400},
				Label:    map[string][]string{"k": {"v1", "v2"}, "z": {"y"}},
				NumLabel: map[string][]int64{"size": {10, 20}, "n": {-1}}, NumUnit: map[string][]string{"size": {"bytes", ""}}},
			{Location: []*profile.Location{l2}, Value: []int64{1, 0}, NumLabel: map[string][]int64{"n": {5, 6, 7}}},
			{Value: []int64{0, -5}},
		},
		Mapping:       []*profile.Mapping{m, m2},
		Location:      []*profile.Location{l1, l2, l3},
		Function:      []*profile.Function{f1, f2},
		DropFrames:    "runtime\\..*",
		KeepFrames:    "main",
		TimeNanos:     1234567890,
		DurationNanos: 42,
		PeriodType:    &profile.ValueType{Type: "goroutine", Unit: "count"},
		Period:        1,
		Comments:      []string{"one", "two", "three"},
		DocURL:        "https://example.com/doc",
	}
	p.DefaultSampleType = "bytes"
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
