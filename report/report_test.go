package report

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/stack"
)

// checkGroups compares the page's groups of one dump with the groups it
// was given: keys, counts, states, labels, ids and every frame.
func checkGroups(t *testing.T, doc *pageDoc, in inputDoc, groups []*stack.Group, maxIDs int) {
	t.Helper()
	if len(in.Groups) != len(groups) {
		t.Fatalf("%s: page has %d groups, want %d", in.Name, len(in.Groups), len(groups))
	}
	var sum int64
	for i, g := range groups {
		pg := in.Groups[i]
		sum += pg.Count
		if pg.Key != g.Key || pg.Count != g.Count {
			t.Errorf("%s group %d: key %s count %d, want %s %d", in.Name, i, pg.Key, pg.Count, g.Key, g.Count)
		}
		states := map[string]int64{}
		for _, s := range pg.States {
			states[s.State] = s.Count
		}
		if len(states) != len(g.States) {
			t.Errorf("%s group %d: states %v, want %v", in.Name, i, states, g.States)
		}
		for s, n := range g.States {
			if states[s] != n {
				t.Errorf("%s group %d: state %q %d, want %d", in.Name, i, s, states[s], n)
			}
		}
		if len(pg.Labels) != len(g.Labels) {
			t.Errorf("%s group %d: %d label sets, want %d", in.Name, i, len(pg.Labels), len(g.Labels))
		} else {
			for j, lc := range g.Labels {
				if pg.Labels[j].Count != lc.Count || len(pg.Labels[j].Set) != len(lc.Labels) {
					t.Errorf("%s group %d: label set %d is %v, want %v", in.Name, i, j, pg.Labels[j], lc)
					continue
				}
				for k, l := range lc.Labels {
					if pg.Labels[j].Set[k] != [2]string{l.Key, l.Value} {
						t.Errorf("%s group %d: label %v, want %v", in.Name, i, pg.Labels[j].Set[k], l)
					}
				}
			}
		}
		wantIDs := g.IDs[:min(len(g.IDs), maxIDs)]
		if slices.Equal(wantIDs, []int64{0}) {
			wantIDs = nil
		}
		if !slices.Equal(pg.IDs, wantIDs) || pg.MoreIDs != g.MoreIDs+int64(len(g.IDs)-len(wantIDs)) && wantIDs != nil {
			t.Errorf("%s group %d: ids %v (+%d), want %v of %v (+%d)", in.Name, i, pg.IDs, pg.MoreIDs, wantIDs, g.IDs, g.MoreIDs)
		}
		frames := g.Sample.Frames()
		if len(pg.Stack) != len(frames) {
			t.Fatalf("%s group %d: %d frames, want %d", in.Name, i, len(pg.Stack), len(frames))
		}
		for j, f := range frames {
			row := doc.Frames[pg.Stack[j]]
			if doc.Strings[row[0]] != f.Func || doc.Strings[row[1]] != f.File || row[2] != f.Line {
				t.Errorf("%s group %d frame %d: %s %s:%d, want %s %s:%d", in.Name, i, j,
					doc.Strings[row[0]], doc.Strings[row[1]], row[2], f.Func, f.File, f.Line)
			}
			if got, want := row[3]&flagRuntime != 0, f.IsRuntime(); got != want {
				t.Errorf("%s frame %s: runtime flag %v, want %v", in.Name, f.Func, got, want)
			}
		}
	}
	if sum+in.RoutinesOmitted != in.Total {
		t.Errorf("%s: groups count %d (+%d omitted), total %d", in.Name, sum, in.RoutinesOmitted, in.Total)
	}
}

func TestPageDataMatchesGroups(t *testing.T) {
	for _, rel := range []string{
		"corpus/go/profilernotes_2.net.http.pprof.goroutine.debug1.txt",
		"corpus/go/panicparse_panicweb_debug2.txt",
		"corpus/go/gostackparse_frameselided.txt",
		"corpus/go/profilernotes_2.net.http.pprof.goroutine.debug0.pb.gz",
		"corpus/jvm/tda_jdk11_tomcat.log",
		"corpus/jvm/tda_hpux_jdk15_large.log", // two dumps in one file
	} {
		t.Run(rel, func(t *testing.T) {
			inputs := readCorpus(t, rel)
			doc := pageData(t, writeReport(t, inputs, Options{}))
			if len(doc.Inputs) != len(inputs) {
				t.Fatalf("page has %d dumps, want %d", len(doc.Inputs), len(inputs))
			}
			for i, in := range inputs {
				got := doc.Inputs[i]
				if got.Total != in.Dump.Total || got.Kind != in.Dump.Source.Kind || got.Name != in.Name {
					t.Errorf("dump %d: %s %s total %d, want %s %s %d", i, got.Name, got.Kind, got.Total, in.Name, in.Dump.Source.Kind, in.Dump.Total)
				}
				checkGroups(t, doc, got, in.Groups, DefaultMaxIDs)
			}
			if len(inputs) > 1 && (doc.Timeline == nil || len(doc.Timeline.Totals) != len(inputs)) {
				t.Errorf("several dumps give no timeline: %+v", doc.Timeline)
			}
		})
	}
}

func TestJVMFramesAndNouns(t *testing.T) {
	inputs := readCorpus(t, "corpus/jvm/tda_jdk11_tomcat.log")
	doc := pageData(t, writeReport(t, inputs, Options{}))
	in := doc.Inputs[0]
	if in.Noun != "threads" {
		t.Errorf("noun %q, want threads", in.Noun)
	}
	var modules, std, app int
	for _, row := range doc.Frames {
		fn := doc.Strings[row[0]]
		if len(row) > 5 {
			modules++
		}
		switch pkg := doc.Strings[row[4]]; {
		case strings.HasPrefix(fn, "java."):
			std++
			if row[3]&flagStd == 0 || !strings.HasPrefix(fn, pkg+".") || pkg == "java" {
				t.Errorf("%s: package %q flags %b", fn, pkg, row[3])
			}
		case strings.HasPrefix(fn, "org.apache."):
			app++
			if row[3]&flagStd != 0 {
				t.Errorf("%s is marked as JDK", fn)
			}
		}
	}
	if modules == 0 || std == 0 || app == 0 {
		t.Errorf("want module, JDK and application frames: %d %d %d", modules, std, app)
	}
	names := 0
	for _, g := range in.Groups {
		if g.Name != "" {
			names++
		}
	}
	if names != len(in.Groups) {
		t.Errorf("%d of %d groups carry a thread name", names, len(in.Groups))
	}
}

func TestMaxGroupsCountsTheRest(t *testing.T) {
	inputs := readCorpus(t, "corpus/jvm/jthreaddump_complex_extended_jdk25.txt")
	all := inputs[0].Groups
	if len(all) < 5 {
		t.Fatalf("corpus dump has %d groups", len(all))
	}
	doc := pageData(t, writeReport(t, inputs, Options{MaxGroups: 3}))
	in := doc.Inputs[0]
	var rest int64
	for _, g := range all[3:] {
		rest += g.Count
	}
	if len(in.Groups) != 3 || in.GroupsOmitted != len(all)-3 || in.RoutinesOmitted != rest {
		t.Errorf("got %d groups, %d omitted with %d threads; want 3, %d, %d", len(in.Groups), in.GroupsOmitted, in.RoutinesOmitted, len(all)-3, rest)
	}
	checkGroups(t, doc, in, all[:3], DefaultMaxIDs)
}

func TestGroupsInputsWithoutGroups(t *testing.T) {
	b := newDump(stack.KindGoTraceback, "app")
	b.add(1, 1, stack.Routine{State: "select", Stack: b.stack("main.main@/app/main.go:20")})
	b.add(10, 7, stack.Routine{State: "chan receive", WaitMinutes: 3, Stack: b.stack("main.worker@/app/w.go:9")})
	doc := pageData(t, writeReport(t, []Input{{Dump: b.dump}}, Options{}))
	in := doc.Inputs[0]
	checkGroups(t, doc, in, groupsOf(b.dump), DefaultMaxIDs)
	if in.Name != "app" || in.Total != 8 {
		t.Errorf("name %q total %d", in.Name, in.Total)
	}
	if w := in.Groups[0].Wait; len(w) != 2 || w[0] != 3 || w[1] != 3 {
		t.Errorf("wait %v, want [3 3]", w)
	}
	if doc.Title != "stackdump report: app" {
		t.Errorf("title %q", doc.Title)
	}
}

func TestSummaryCarriesPreambleWarningsTruncation(t *testing.T) {
	b := newDump(stack.KindGoTraceback, "crash.log")
	b.add(1, 1, stack.Routine{State: "running", Stack: b.stack("main.main@/app/main.go:20")})
	b.dump.Preamble = []string{"panic: boom", "", "goroutine 1 [running]:"}
	b.dump.Truncated = true
	for i := range maxWarnings + 3 {
		b.dump.Warnings = append(b.dump.Warnings, &stack.ParseError{Line: i + 1, Msg: "unexpected line", Text: strings.Repeat("x", 1000)})
	}
	in := pageData(t, writeReport(t, []Input{{Dump: b.dump}}, Options{})).Inputs[0]
	if !in.Truncated || !slices.Equal(in.Preamble, b.dump.Preamble) {
		t.Errorf("truncated %v preamble %q", in.Truncated, in.Preamble)
	}
	if len(in.Warnings) != maxWarnings || in.WarningsMore != 3 || in.Warnings[1].Line != 2 || len(in.Warnings[0].Text) > maxWarningText+len("…") {
		t.Errorf("%d warnings (+%d), second on line %d, text of %d bytes", len(in.Warnings), in.WarningsMore, in.Warnings[1].Line, len(in.Warnings[0].Text))
	}
}

func TestWriteErrors(t *testing.T) {
	if err := Write(io.Discard, nil, Options{}); !errors.Is(err, ErrNoInput) {
		t.Errorf("no inputs: %v", err)
	}
	if err := Write(io.Discard, []Input{{Name: "x"}}, Options{}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("input without dump: %v", err)
	}
	b := newDump(stack.KindGoTraceback, "")
	b.add(1, 1, stack.Routine{Stack: b.stack("main.main@/a.go:1")})
	if err := Write(failingWriter{}, []Input{{Dump: b.dump}}, Options{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
	if _, err := Read(strings.NewReader("no dump here\n"), "junk.txt", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "junk.txt") {
		t.Errorf("reading junk: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
