package debug1_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

func TestDebug1ReadGenerated(t *testing.T) {
	dumps := doortest.ReadFile(t, "../../testdata/debug1/go1.26.8.txt", formats.ReadOptions{})
	if len(dumps) != 1 {
		t.Fatalf("got %d dumps, want 1", len(dumps))
	}
	d := dumps[0]
	if d.Source.Kind != stack.KindGoDebug1 || d.Total != 39 || len(d.Warnings) != 0 || d.Truncated {
		t.Fatalf("dump: kind %q total %d warnings %v truncated %v", d.Source.Kind, d.Total, d.Warnings, d.Truncated)
	}
	want := map[string]int64{}
	for fn, n := range dumptest.GeneratedCounts() {
		if n > 0 {
			want[fn] = n
		}
	}
	want["main.write"] = 1 // the goroutine that wrote the profile
	dumptest.CheckCounts(t, dumptest.CountsByPrefix(d, "main."), want)

	for _, r := range d.Routines {
		if r.ID != 0 || r.State != "" || r.Leaked {
			t.Errorf("record at line %d: id %d state %q leaked %v", r.Line, r.ID, r.State, r.Leaked)
		}
		top := r.Frames()[0]
		switch top.Func {
		case "main.waitChanRecv":
			// #	0x4e9814	main.waitChanRecv+0x14	github.com/.../main.go:163
			if r.Line != 2 || top.Offset != 0x14 || !top.HasOffset || top.Line != 163 ||
				top.File != "github.com/stackdump/stackdump/testdata/gen/profiles/main.go" ||
				r.Values == nil || r.Values.Frames[0].PC != 0x4e9814 || r.Labels != nil {
				t.Errorf("waitChanRecv record: %+v, frame %+v, values %+v", r, top, r.Values)
			}
		case "main.waitLabelled":
			if v, _ := r.Labels.Get("weird key"); v != "a\"b\nc" || len(r.Labels) != 2 || r.Labels[0] != (stack.Label{Key: "svc", Value: "users"}) {
				t.Errorf("labels %q", r.Labels)
			}
		case "main.inlinedRecv":
			if fs := r.Frames(); len(fs) != 2 || fs[1].Func != "main.waitInlinedCaller" || r.Values.Frames[1].PC != 0x4e9a15 {
				t.Errorf("inlined record frames %v values %v", fs, r.Values)
			}
		case "internal/sync.runtime_SemacquireMutex":
			if fs := r.Frames(); len(fs) != 5 || fs[4].Func != "main.waitMutex" || fs[4].File != "github.com/stackdump/stackdump/testdata/gen/profiles/main.go" {
				t.Errorf("mutex record frames %v", fs)
			}
		}
	}
}

func TestDebug1ReadLeakProfile(t *testing.T) {
	dumps := doortest.ReadFile(t, "../../testdata/debug1/go1.26.8.leak.txt", formats.ReadOptions{})
	if len(dumps) != 1 || dumps[0].Total != 29 || len(dumps[0].Warnings) != 0 {
		t.Fatalf("got %d dumps, %+v", len(dumps), dumps)
	}
	for _, r := range dumps[0].Routines {
		if !r.Leaked {
			t.Errorf("record at line %d not Leaked", r.Line)
		}
	}
	dumptest.CheckCounts(t, dumptest.CountsByPrefix(dumps[0], "main."), dumptest.GeneratedLeakCounts())
}

// recordLine matches a debug=1 record line, for counting independently of
// the reader.
var recordLine = regexp.MustCompile(`(?m)^(\d+) @`)

func TestDebug1ReadCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/go/*debug1.txt")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			records := recordLine.FindAllSubmatch(raw, -1)
			for _, m := range records {
				n, _ := strconv.ParseInt(string(m[1]), 10, 64)
				sum += n
			}
			header := regexp.MustCompile(`goroutine profile: total (\d+)`).FindSubmatch(raw)
			total, _ := strconv.ParseInt(string(header[1]), 10, 64)
			if sum != total {
				t.Fatalf("corpus file itself: records %d, header %d", sum, total)
			}

			dumps := doortest.ReadFile(t, path, formats.ReadOptions{})
			if len(dumps) != 1 {
				t.Fatalf("got %d dumps", len(dumps))
			}
			d := dumps[0]
			if d.Total != total || len(d.Routines) != len(records) || len(d.Warnings) != 0 {
				t.Errorf("total %d (want %d), %d records (want %d), warnings %v", d.Total, total, len(d.Routines), len(records), d.Warnings)
			}
			frameLines := bytes.Count(raw, []byte("\n#\t"))
			n := 0
			for _, r := range d.Routines {
				n += len(r.Frames())
				if len(r.Frames()) == 0 {
					t.Errorf("record at line %d has no frames", r.Line)
				}
			}
			if n != frameLines {
				t.Errorf("%d frames, file has %d frame lines", n, frameLines)
			}
		})
	}
}

func TestDebug1ReadCorpusLabels(t *testing.T) {
	dumps := doortest.ReadFile(t, "../../testdata/corpus/go/profilernotes_2.net.http.pprof.goroutine.debug1.txt", formats.ReadOptions{})
	labelled := int64(0)
	for _, r := range dumps[0].Routines {
		if v, ok := r.Labels.Get("test_label"); ok && v == "test_value" {
			labelled += r.Count
		}
	}
	raw, _ := os.ReadFile("../../testdata/corpus/go/profilernotes_2.net.http.pprof.goroutine.debug1.txt")
	var want int64
	for _, m := range regexp.MustCompile(`(?m)^(\d+) @.*\n# labels: \{"test_label":"test_value"\}`).FindAllSubmatch(raw, -1) {
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		want += n
	}
	if labelled != want || want == 0 {
		t.Errorf("labelled goroutines %d, want %d", labelled, want)
	}
}

// debug1Case is an input and what reading it must give: per dump the total
// and the counts, and the warnings as "line N: message" prefixes.
type debug1Case struct {
	name      string
	in        string
	totals    []int64
	records   []int
	warnings  []string
	truncated bool
}

func TestDebug1ReadForgiving(t *testing.T) {
	cases := []debug1Case{{
		name: "junk around, CRLF, spaces instead of tabs",
		in: "$ curl localhost:6060/debug/pprof/goroutine?debug=1\r\n" +
			"goroutine profile: total 3\r\n" +
			"2 @ 0x1 0x2\r\n" +
			"#   0x0   main.a+0x1c   /src/a.go:3\r\n" +
			"\r\n" +
			"1 @ 0x3\r\n" +
			"#\t0x2\tmain.b+0x0\t\t/src/b.go:4\r\n" +
			"\r\n" +
			"$ echo done\r\ndone\r\n",
		totals: []int64{3}, records: []int{2},
	}, {
		name: "two profiles, leak profile second",
		in: "goroutine profile: total 1\n1 @ 0x1\n#\t0x0\tmain.a+0x0\t/a.go:1\n\n" +
			"log line between\n" +
			"goroutineleak profile: total 4\n4 @ 0x1\n#\t0x0\tmain.b+0x0\t/b.go:1\n",
		totals: []int64{1, 4}, records: []int{1, 1},
	}, {
		name:     "header total does not match",
		in:       "goroutine profile: total 5\n2 @ 0x1\n#\t0x0\tmain.a+0x0\t/a.go:1\n\n2 @ 0x2\n#\t0x1\tmain.b+0x0\t/b.go:1\n\n",
		totals:   []int64{4},
		records:  []int{2},
		warnings: []string{"line 1: header total 5 but the records count 4"},
		// Ends early: the last record is followed by its blank line, but
		// one goroutine is missing.
		truncated: true,
	}, {
		name: "bad lines inside records are reported, the records kept",
		in: "goroutine profile: total 3\n" +
			"1 @ 0x1\n# labels: {\"a\":\"b\"\n#\tnot-a-pc\tmain.x+0x0\t/x.go:1\n#\t0x0\tmain.a+0x0\t/a.go:1\n\n" +
			"#\t0x1\tmain.orphan+0x0\t/o.go:1\n" +
			"something odd\n" +
			"2 @ 0x2\n#\t0x1\tmain.b+0x0\n\n",
		totals:  []int64{3},
		records: []int{2},
		warnings: []string{
			"line 3: bad labels",
			"line 4: frame line without a 0x PC",
			"line 7: frame line outside a record",
			"line 8: unexpected line in a goroutine profile",
			"line 10: frame line without file:line",
		},
	}, {
		name:     "cut short inside a record",
		in:       "goroutine profile: total 9\n3 @ 0x1 0x2\n#\t0x0\tmain.a+0x0\t/a.go:1\n#\t0x1\tmain.b+0x",
		totals:   []int64{3},
		records:  []int{1},
		warnings: []string{"line 4: frame line without file:line", "line 1: header total 9 but the records count 3"}, truncated: true,
	}, {
		name:     "over-long line",
		in:       "goroutine profile: total 1\n1 @ 0x1\n#\t0x0\tmain." + strings.Repeat("x", 300) + "+0x0\t/a.go:1\n#\t0x1\tmain.b+0x0\t/b.go:2\n",
		totals:   []int64{1},
		records:  []int{1},
		warnings: []string{"line 3: line longer than 128 bytes skipped"},
	}, {
		name:    "frames without symbol and empty stacks",
		in:      "goroutine profile: total 3\n2 @ 0x4a3b2d 0x1\n#\t0x4a3b2c\n#\t0x0\tmain.a+0x0\t/a.go:1\n\n1 @\n\n",
		totals:  []int64{3},
		records: []int{2},
	}, {
		name:    "no profile at all",
		in:      "hello\nworld\n",
		totals:  nil,
		records: nil,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dumps, err := formats.ReadAll(strings.NewReader(c.in), formats.ReadOptions{Kind: stack.KindGoDebug1, MaxLineBytes: 128})
			if err != nil {
				t.Fatal(err)
			}
			if len(dumps) != len(c.totals) {
				t.Fatalf("got %d dumps, want %d", len(dumps), len(c.totals))
			}
			var warnings []string
			for i, d := range dumps {
				if d.Total != c.totals[i] || len(d.Routines) != c.records[i] {
					t.Errorf("dump %d: total %d, %d records; want %d, %d", i, d.Total, len(d.Routines), c.totals[i], c.records[i])
				}
				for _, w := range d.Warnings {
					warnings = append(warnings, w.Error())
				}
				if d.Truncated != c.truncated {
					t.Errorf("dump %d: truncated %v", i, d.Truncated)
				}
			}
			if len(warnings) != len(c.warnings) {
				t.Fatalf("warnings %q, want %q", warnings, c.warnings)
			}
			for i, w := range warnings {
				if !strings.HasPrefix(w, c.warnings[i]) {
					t.Errorf("warning %q, want prefix %q", w, c.warnings[i])
				}
			}
		})
	}
}

func TestDebug1ReadDetails(t *testing.T) {
	in := "goroutineleak profile: total 3\n" +
		"2 @ 0x4a3b2d 0x1\n#\t0x4a3b2c\n#\t0x0\tmain.F[go.shape.struct { A int }]+0x1c\tC:/src/a b.go:12\n\n" +
		"1 @ 0x4a3b2e\n#\t0x4a3b2d\n\n"
	dumps, err := formats.ReadAll(strings.NewReader(in), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := dumps[0].Routines
	if len(rs) != 2 || !rs[0].Leaked || rs[0].Count != 2 {
		t.Fatalf("routines %+v", rs)
	}
	unknown, generic := rs[0].Frames()[0], rs[0].Frames()[1]
	if unknown.Func != "" || !unknown.Native || unknown.Offset != 0x4a3b2c || rs[0].Values.Frames[0].PC != 0x4a3b2c {
		t.Errorf("frame without symbol: %+v", unknown)
	}
	if generic.Func != "main.F[go.shape.struct { A int }]" || generic.Offset != 0x1c || generic.File != "C:/src/a b.go" || generic.Line != 12 {
		t.Errorf("generic frame: %+v", generic)
	}
	if rs[1].Frames()[0] == unknown {
		t.Error("different unknown PCs share a frame")
	}
}

// TestDebug1ReadStreams checks that a dump is yielded before the input
// ends: the reader must not need the whole input.
func TestDebug1ReadStreams(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, "goroutine profile: total 2\n1 @ 0x1\n#\t0x0\tmain.a+0x0\t/a.go:1\n\n")
	}()
	rd := formats.NewReader(pr, formats.ReadOptions{Kind: stack.KindGoDebug1})
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	for r, err := range rd.Routines() {
		if err != nil || r.Frames()[0].Func != "main.a" {
			t.Fatalf("%v %v", r, err)
		}
		break
	}
	pw.Close()
}
