package pprof_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/formats/output"
	"github.com/stackdump/stackdump/formats/pprof"
	"github.com/stackdump/stackdump/stack"
)

func TestPprofReadGenerated(t *testing.T) {
	d := doortest.ReadOne(t, "../../testdata/pprof/go1.26.8.pb.gz", formats.ReadOptions{})
	if d.Source.Kind != stack.KindGoPprof || d.Total != 39 || len(d.Warnings) != 0 || d.Source.CapturedAt.IsZero() {
		t.Fatalf("dump: kind %q total %d warnings %v captured %v", d.Source.Kind, d.Total, d.Warnings, d.Source.CapturedAt)
	}
	want := map[string]int64{"main.write": 1}
	for fn, n := range dumptest.GeneratedCounts() {
		want[fn] = n
	}
	dumptest.CheckCounts(t, dumptest.CountsByPrefix(d, "main."), want)
	for _, r := range d.Routines {
		fs := r.Frames()
		if r.ID != 0 || r.Line != 0 || len(fs) == 0 {
			t.Errorf("routine %+v", r)
			continue
		}
		for i, f := range fs {
			if f.HasOffset || r.Values == nil || r.Values.Frames[i].PC == 0 {
				t.Errorf("frame %d of %v: %+v, values %v", i, fs[0].Func, f, r.Values)
			}
		}
		if fs[0].Func != "runtime.gopark" || len(fs) < 5 {
			continue
		}
		switch fs[3].Func {
		case "main.inlinedRecv":
			// One location: inlinedRecv inlined into waitInlinedCaller.
			if !fs[3].Inlined || fs[4].Inlined || fs[4].Func != "main.waitInlinedCaller" || fs[4].Line != 189 ||
				r.Values.Frames[3].PC != 0x4e9a14 || r.Values.Frames[4].PC != 0x4e9a14 {
				t.Errorf("inlined frames %+v %+v values %v", fs[3], fs[4], r.Values)
			}
		case "main.waitLabelled":
			if v, _ := r.Labels.Get("weird key"); v != "a\"b\nc" || len(r.Labels) != 2 || r.State != "" {
				t.Errorf("labels %q state %q", r.Labels, r.State)
			}
		case "main.waitChanRecv":
			if fs[3].File != "github.com/stackdump/stackdump/testdata/gen/profiles/main.go" || fs[3].Line != 163 || fs[1].Func != "runtime.chanrecv" {
				t.Errorf("frames %v", fs)
			}
		}
	}
}

func TestPprofReadLeakProfile(t *testing.T) {
	d := doortest.ReadOne(t, "../../testdata/pprof/go1.26.8.leak.pb.gz", formats.ReadOptions{})
	if d.Total != 29 {
		t.Errorf("total %d, want 29", d.Total)
	}
	for _, r := range d.Routines {
		if !r.Leaked {
			t.Errorf("routine not Leaked: %v", r.Frames())
		}
	}
	dumptest.CheckCounts(t, dumptest.CountsByPrefix(d, "main."), dumptest.GeneratedLeakCounts())
}

// TestPprofReadCorpus checks the totals of real profiles against the sum
// google/pprof's own parser gives and against the debug=1 header of the
// same capture.
func TestPprofReadCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/go/*debug0.pb.gz")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, _ := os.ReadFile(path)
			p, err := profile.Parse(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, s := range p.Sample {
				want += s.Value[0]
			}
			debug1, _ := os.ReadFile(strings.Replace(path, "debug0.pb.gz", "debug1.txt", 1))
			m := regexp.MustCompile(`total (\d+)`).FindSubmatch(debug1)
			if header, _ := strconv.ParseInt(string(m[1]), 10, 64); header != want {
				t.Fatalf("corpus: debug=1 of the same capture says %d, samples sum to %d", header, want)
			}

			d := doortest.ReadOne(t, path, formats.ReadOptions{})
			if d.Total != want || len(d.Routines) != len(p.Sample) {
				t.Errorf("total %d (want %d), %d routines (want %d)", d.Total, want, len(d.Routines), len(p.Sample))
			}
			labelled := int64(0)
			for _, r := range d.Routines {
				if v, _ := r.Labels.Get("test_label"); v == "test_value" {
					labelled += r.Count
				}
			}
			wantLabelled := int64(0)
			for _, s := range p.Sample {
				if s.HasLabel("test_label", "test_value") {
					wantLabelled += s.Value[0]
				}
			}
			if labelled != wantLabelled {
				t.Errorf("labelled %d, want %d", labelled, wantLabelled)
			}
		})
	}
}

func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPprofReadTruncated cuts a real profile at every third length:
// reading must fail with the byte offset of the broken field, never panic.
func TestPprofReadTruncated(t *testing.T) {
	data := gunzipFile(t, "../../testdata/pprof/go1.26.8.pb.gz")
	offset := regexp.MustCompile(`^reading go-pprof dump: pprof protobuf, offset (\d+) of (\d+) bytes: field \w+ \(\d+\)`)
	for n := 1; n < len(data); n += 3 {
		_, err := formats.ReadAll(bytes.NewReader(data[:n]), formats.ReadOptions{Kind: stack.KindGoPprof})
		if err == nil {
			// Cut exactly between two fields: the framing is sound, but
			// the string table or an id is missing.
			continue
		}
		m := offset.FindStringSubmatch(err.Error())
		if m == nil {
			if !strings.Contains(err.Error(), "pprof protobuf of") && !strings.Contains(err.Error(), "malformed pprof profile") && !errors.Is(err, stack.ErrNotGoroutineProfile) {
				t.Fatalf("cut at %d: %v", n, err)
			}
			continue
		}
		if off, _ := strconv.Atoi(m[1]); off >= n {
			t.Fatalf("cut at %d: offset %d past the end: %v", n, off, err)
		}
		if m[2] != strconv.Itoa(n) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	// The gzipped file cut short is a decompression error.
	gz, _ := os.ReadFile("../../testdata/pprof/go1.26.8.pb.gz")
	_, err := formats.ReadAll(bytes.NewReader(gz[:len(gz)/2]), formats.ReadOptions{Kind: stack.KindGoPprof})
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "reading pprof data") {
		t.Errorf("truncated gzip: %v", err)
	}
}

func TestPprofReadRejects(t *testing.T) {
	cpu := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10000000,
	}
	var buf bytes.Buffer
	if err := cpu.Write(&buf); err != nil {
		t.Fatal(err)
	}
	_, err := formats.ReadAll(&buf, formats.ReadOptions{})
	if !errors.Is(err, stack.ErrNotGoroutineProfile) || !strings.Contains(err.Error(), "samples/count, cpu/nanoseconds") {
		t.Errorf("cpu profile: %v", err)
	}

	data := gunzipFile(t, "../../testdata/pprof/go1.26.8.pb.gz")
	_, err = formats.ReadAll(bytes.NewReader(data), formats.ReadOptions{MaxDecompressedBytes: int64(len(data) - 1)})
	if !errors.Is(err, stack.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	dumps, err := formats.ReadAll(bytes.NewReader(nil), formats.ReadOptions{Kind: stack.KindGoPprof})
	if err != nil || len(dumps) != 0 {
		t.Errorf("empty input: %v %v", dumps, err)
	}
}

func writePprofFile(t *testing.T, d *stack.Dump, compress output.Compression) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "goroutines.pb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := output.NewWriter(f, compress)
	if err != nil {
		t.Fatal(err)
	}
	enc := pprof.NewEncoder(out)
	if err := stack.WriteDump(enc, d); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// goToolPprof runs `go tool pprof` with args on path.
func goToolPprof(t *testing.T, path string, args ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run go tool pprof")
	}
	cmd := exec.Command(goBin, append(append([]string{"tool", "pprof"}, args...), path)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestPprofWriteGoToolPprof writes the generated debug=1 profile as pprof
// and checks with `go tool pprof` that the counts, functions and labels
// are there.
func TestPprofWriteGoToolPprof(t *testing.T) {
	dumps := doortest.ReadFile(t, "../../testdata/debug1/go1.26.8.txt", formats.ReadOptions{})
	path := writePprofFile(t, dumps[0], output.Gzip)

	raw := goToolPprof(t, path, "-raw")
	if !strings.Contains(raw, "PeriodType: goroutine count") || !strings.Contains(raw, "goroutine/count") {
		t.Errorf("-raw: no goroutine/count:\n%s", raw)
	}
	for fn, n := range dumptest.GeneratedCounts() {
		if !regexp.MustCompile(`(?m)^\s+`+strconv.FormatInt(n, 10)+`: `).MatchString(raw) || !strings.Contains(raw, " "+fn+" ") {
			t.Errorf("-raw: no sample of %d for %s", n, fn)
		}
	}
	if !strings.Contains(raw, `svc:[users] weird key:[a"b`) {
		t.Errorf("-raw: labels missing:\n%s", raw)
	}

	top := goToolPprof(t, path, "-top", "-nodecount=100")
	// Flat count per function: the innermost frame of each record.
	for _, line := range []string{`\b10 25\.64%.*main\.waitChanRecv$`, `\b7 17\.95%.*main\.inlinedRecv$`, `\b6 15\.38%.*main\.waitLabelled$`} {
		if !regexp.MustCompile(`(?m)` + line).MatchString(top) {
			t.Errorf("-top: no line %s in\n%s", line, top)
		}
	}
	if strings.Contains(top, "binary") || strings.Contains(top, "symboliz") {
		t.Errorf("pprof tried to symbolize the profile:\n%s", top)
	}
	if !strings.Contains(top, "Type: goroutine") || !strings.Contains(top, "39 total") {
		t.Errorf("-top header:\n%s", top)
	}
}

// TestPprofRoundTrip reads real profiles, writes them and reads them back
// with one Table: the same samples, stacks (inlining included), labels
// and PCs.
func TestPprofRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/go/*debug0.pb.gz")
	files = append(files, "../../testdata/pprof/go1.26.8.pb.gz", "../../testdata/pprof/go1.26.8.leak.pb.gz")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab := stack.NewTable()
			first := doortest.ReadOne(t, path, formats.ReadOptions{Table: tab})
			out := dumptest.Encode(t, pprof.NewEncoder, first)
			second, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
			if err != nil {
				t.Fatal(err)
			}
			dumptest.CheckSameGroups(t, []*stack.Dump{first}, second)
			for i, r := range second[0].Routines {
				// Values are interned through a bounded cache, so equal
				// values need not share a pointer: compare contents.
				if !reflect.DeepEqual(r.Values, first.Routines[i].Values) {
					t.Errorf("sample %d: values %v, want %v", i, r.Values, first.Routines[i].Values)
				}
			}
			p, err := profile.ParseData(out)
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := profile.Parse(bytes.NewReader(dumptest.ReadFile(t, path)))
			if len(p.Function) > len(orig.Function) || len(p.Location) > len(orig.Location) {
				t.Errorf("tables not shared: %d functions, %d locations; the original has %d, %d",
					len(p.Function), len(p.Location), len(orig.Function), len(orig.Location))
			}
		})
	}
}

// TestPprofWriteStates writes a full dump, with states, labels and a
// panic preamble, and reads it back.
func TestPprofWriteStates(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.FullDump(tab)
	d.Preamble = []string{"panic: boom"}
	d.Source.CapturedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// A program label named "state" moves the states to another label.
	d.Routines[9].Labels = tab.Labels(stack.Labels{{Key: "state", Value: "mine"}})
	out := dumptest.Encode(t, pprof.NewEncoder, d)
	back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range back[0].Routines {
		got[r.Frames()[len(r.Frames())-1].Func+"|"+r.State+"|"+dumptest.LabelsString(r.Labels)] += r.Count
	}
	want := map[string]int64{
		"main.worker|chan receive|":                  5,
		"main.worker|select|":                        2,
		"net/http.(*conn).serve|IO wait|svc=users;":  2,
		"net/http.(*conn).serve|IO wait|state=mine;": 1,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if b := back[0]; b.Total != 10 || len(b.Preamble) != 1 || b.Preamble[0] != "panic: boom" || !b.Source.CapturedAt.Equal(d.Source.CapturedAt) {
		t.Errorf("dump: total %d preamble %q captured %v", b.Total, b.Preamble, b.Source.CapturedAt)
	}

	// A second dump does not fit in one profile.
	enc := pprof.NewEncoder(io.Discard)
	if err := stack.WriteDump(enc, d); err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteDump(enc, d); !errors.Is(err, stack.ErrOneDumpPerProfile) {
		t.Errorf("second dump: %v", err)
	}
}

func TestPprofWriteError(t *testing.T) {
	boom := errors.New("disk full")
	enc := pprof.NewEncoder(dumptest.FailingWriter{Err: boom})
	if err := stack.WriteDump(enc, dumptest.FullDump(stack.NewTable())); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}
