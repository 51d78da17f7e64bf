package formats_test

import (
	"bytes"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/stack"
)

// overflowingDebug1 is the real debug=1 profile of testdata/gen/profiles
// with the counts of its first two records replaced by the largest
// int64, as a corrupt or malicious file holds them; it returns the text
// and the line numbers of the two records.
func overflowingDebug1(t *testing.T) ([]byte, []int) {
	t.Helper()
	in, err := os.ReadFile("../testdata/debug1/go1.26.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	record := regexp.MustCompile(`^\d+ @`)
	lines := strings.Split(string(in), "\n")
	var at []int
	for i, l := range lines {
		if len(at) < 2 && record.MatchString(l) {
			lines[i] = strconv.FormatInt(math.MaxInt64, 10) + l[strings.Index(l, " @"):]
			at = append(at, i+1)
		}
	}
	if len(at) != 2 {
		t.Fatalf("found %d records", len(at))
	}
	return []byte(strings.Join(lines, "\n")), at
}

// TestDebug1CountOverflow reads two records of 9223372036854775807:
// each is saturated at 2^40 with a warning naming its line, the total
// stays positive, and so do the grouped text's and a
// pprof profile's totals written from it.
func TestDebug1CountOverflow(t *testing.T) {
	in, at := overflowingDebug1(t)
	dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := dumps[0]
	var warned []int
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, "above the bound") {
			warned = append(warned, w.Line)
		}
	}
	if len(warned) != 2 || warned[0] != at[0] || warned[1] != at[1] {
		t.Fatalf("warnings at lines %v, want %v; warnings %v", warned, at, d.Warnings)
	}
	var sum int64
	for _, r := range d.Routines {
		if r.Count < 1 {
			t.Fatalf("record of line %d counts %d", r.Line, r.Count)
		}
		sum += r.Count
	}
	orig := doortest.ReadFile(t, "../testdata/debug1/go1.26.8.txt", formats.ReadOptions{})[0]
	want := orig.Total - orig.Routines[0].Count - orig.Routines[1].Count + 2<<40
	if d.Total != want || sum != d.Total {
		t.Fatalf("total %d (records sum to %d), want %d: two records saturated at 2^40 and the others", d.Total, sum, want)
	}

	var text bytes.Buffer
	if err := formats.WriteGroups(&text, output.Text, d, groupsOf(d)); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(^|\s)-\d`).Match(text.Bytes()) {
		t.Fatalf("grouped text holds a negative number:\n%s", text.Bytes()[:min(text.Len(), 600)])
	}

	var pb bytes.Buffer
	enc, err := formats.NewEncoder(&pb, output.Pprof)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteDump(enc, d); err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(pb.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var ptotal int64
	for _, s := range p.Sample {
		if s.Value[0] < 0 {
			t.Fatalf("pprof sample of %d", s.Value[0])
		}
		ptotal += s.Value[0]
	}
	if ptotal != d.Total {
		t.Fatalf("pprof total %d, want %d", ptotal, d.Total)
	}
}

// groupsOf makes one group per routine, as the records of a debug=1
// profile already are.
func groupsOf(d *stack.Dump) []*stack.Group {
	var gs []*stack.Group
	for i, r := range d.Routines {
		gs = append(gs, &stack.Group{Key: strconv.Itoa(i), Count: r.Count, Sample: r})
	}
	return gs
}

// TestPprofNegativeCount reads a profile with a negative sample (a delta
// profile's decrease): the sample is skipped with a warning, the total
// does not go down.
func TestPprofNegativeCount(t *testing.T) {
	in, err := os.ReadFile("../testdata/debug1/go1.26.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pb bytes.Buffer
	enc, err := formats.NewEncoder(&pb, output.Pprof)
	if err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteDump(enc, dumps[0]); err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(pb.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	p.Sample[0].Value[0] = -p.Sample[0].Value[0]
	var out bytes.Buffer
	if err := p.Write(&out); err != nil {
		t.Fatal(err)
	}
	got, err := formats.ReadAll(&out, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := got[0]
	if len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0].Msg, "negative count") {
		t.Fatalf("warnings %v, want one about the negative count", d.Warnings)
	}
	if want := dumps[0].Total + p.Sample[0].Value[0]; d.Total != want {
		t.Fatalf("total %d, want %d (the others)", d.Total, want)
	}
}

// TestJSONCountsBounded reads the grouped JSON of a real dump with one
// group counting 9223372036854775807 and another -3: both are reported
// with their byte offsets and saturated (2^40, 0); the total is neither
// negative nor overflowed.
func TestJSONCountsBounded(t *testing.T) {
	in, err := os.ReadFile("../testdata/go/demo_go126.txt")
	if err != nil {
		t.Fatal(err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	d := dumps[0]
	if err := formats.WriteGroups(&doc, output.JSON, d, groupsOf(d)); err != nil {
		t.Fatal(err)
	}
	n := 0
	text := regexp.MustCompile(`"count":\d+`).ReplaceAllStringFunc(doc.String(), func(m string) string {
		n++
		switch n {
		case 1:
			return `"count":` + strconv.FormatInt(math.MaxInt64, 10)
		case 2:
			return `"count":-3`
		}
		return m
	})
	if n < 3 {
		t.Fatalf("%d counts in the document", n)
	}
	got, err := formats.ReadAll(strings.NewReader(text), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var warned int
	for _, w := range got[0].Warnings {
		if strings.Contains(w.Msg, "want a count from 0 to") && w.Offset > 0 {
			warned++
		}
	}
	if warned != 2 {
		t.Fatalf("%d count warnings, want 2: %v", warned, got[0].Warnings)
	}
	var sum int64
	for _, r := range got[0].Routines {
		if r.Count < 0 || r.Count > 1<<40 {
			t.Fatalf("routine count %d", r.Count)
		}
		sum += r.Count
	}
	if sum <= 1<<40 || got[0].Total < 0 {
		t.Fatalf("routines sum to %d, total %d; want the saturated 2^40 and the rest", sum, got[0].Total)
	}
}
