package debug1_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/debug1"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// debug1Blocks splits debug=1 text into its records, each without its
// `N @ …` line, keyed by that text, with the record lines.
func debug1Blocks(text string) (header string, blocks map[string]string) {
	header, rest, _ := strings.Cut(text, "\n")
	blocks = map[string]string{}
	for _, rec := range strings.Split(rest, "\n\n") {
		if rec == "" {
			continue
		}
		at, body, _ := strings.Cut(rec, "\n")
		count, _, _ := strings.Cut(at, " ")
		blocks[body] += count + " "
	}
	return header, blocks
}

// TestDebug1WriteMatchesRuntime checks that what stackdump writes for a
// profile it read is the runtime's own text — header, counts, labels and
// frame lines with their tab padding — except for the `@` lines, where
// the runtime also lists the PCs of the runtime frames it hides.
func TestDebug1WriteMatchesRuntime(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/go/*debug1.txt")
	files = append(files, "../../testdata/debug1/go1.26.8.txt", "../../testdata/debug1/go1.26.8.leak.txt")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dumps := doortest.ReadFile(t, path, formats.ReadOptions{})
			out := dumptest.Encode(t, debug1.NewEncoder, dumps...)
			wantHeader, want := debug1Blocks(string(raw))
			gotHeader, got := debug1Blocks(string(out))
			if gotHeader != wantHeader {
				t.Errorf("header %q, want %q", gotHeader, wantHeader)
			}
			if !reflect.DeepEqual(got, want) {
				for body, counts := range want {
					if got[body] != counts {
						t.Errorf("record\n%s\nwritten with counts %q, want %q", body, got[body], counts)
					}
				}
				t.Errorf("output:\n%s", out)
			}
		})
	}
}

// TestDebug1WriteTabwriterPadding compares the frame-line padding with
// text/tabwriter's, configured as runtime/pprof configures it, on names
// of every width, non-ASCII names and frames without symbol.
func TestDebug1WriteTabwriterPadding(t *testing.T) {
	tab := stack.NewTable()
	type fr struct {
		fn     string
		offset uint64
		pc     uint64
		file   string
		line   int
	}
	stacks := [][]fr{
		{{"main.a", 0x1, 0x4e9814, "/a.go", 1}, {"main.abcdefg", 0x12345, 0x10, "/b.go", 22}, {"main.ab", 0, 0x4e9814ab, "/c.go", 3}},
		{{"main.héllo·wörld", 0x7, 0x1, "/ü.go", 4}, {"x", 0x0, 0x123456789, "/y.go", 5}},
		{{"main.before", 0x1, 0x4, "/a.go", 1}, {"", 0x4a3b2c, 0x4a3b2c, "", 0}, {"main.afterwards_long_name", 0x10, 0x8, "/a.go", 9}},
		// Cells of exactly 8 and 16 runes, the widest of their column.
		{{"main.abcdef", 0x1f, 0x123456, "/a.go", 1}, {"main.b", 0x1, 0x1, "/a.go", 2}},
	}
	d := &stack.Dump{}
	var want bytes.Buffer
	want.WriteString("goroutine profile: total 4\n")
	tw := tabwriter.NewWriter(&want, 1, 8, 1, '\t', 0)
	for i, st := range stacks {
		var frames []*stack.Frame
		var values []stack.FrameValue
		var at strings.Builder
		var lines strings.Builder
		for _, f := range st {
			if f.fn == "" {
				frames = append(frames, tab.Frame(stack.Frame{Native: true, Offset: f.offset}))
				fmt.Fprintf(&lines, "#\t%#x\n", f.pc)
			} else {
				frames = append(frames, tab.Frame(stack.Frame{Func: f.fn, File: f.file, Line: f.line, Offset: f.offset, HasOffset: true}))
				fmt.Fprintf(&lines, "#\t%#x\t%s+%#x\t%s:%d\n", f.pc, f.fn, f.offset, f.file, f.line)
			}
			values = append(values, stack.FrameValue{PC: f.pc})
			fmt.Fprintf(&at, " %#x", f.pc+1)
		}
		d.Routines = append(d.Routines, &stack.Routine{Count: int64(len(stacks) - i + 10), Stack: tab.Stack(frames, stack.Elision{}), Values: tab.Values(values)})
		// Counts are distinct and descending, so this is the runtime's order.
		fmt.Fprintf(tw, "%d @%s\n%s\n", len(stacks)-i+10, at.String(), lines.String())
	}
	tw.Flush()
	out := dumptest.Encode(t, debug1.NewEncoder, d)
	wantText := strings.Replace(want.String(), "total 4", "total 50", 1)
	if string(out) != wantText {
		t.Errorf("got:\n%s\nwant:\n%s", out, wantText)
	}
}

// TestDebug1RoundTrip reads profiles, writes them and reads them back with
// one Table: the same counts, the same interned stacks and labels, the
// same PCs, and writing again gives the same bytes.
func TestDebug1RoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/go/*debug1.txt")
	files = append(files, "../../testdata/debug1/go1.26.8.txt", "../../testdata/debug1/go1.26.8.leak.txt")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab := stack.NewTable()
			first := doortest.ReadFile(t, path, formats.ReadOptions{Table: tab})
			out := dumptest.Encode(t, debug1.NewEncoder, first...)
			second, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
			if err != nil {
				t.Fatal(err)
			}
			dumptest.CheckSameGroups(t, first, second)
			if again := dumptest.Encode(t, debug1.NewEncoder, second...); !bytes.Equal(again, out) {
				t.Errorf("second write differs:\n%s\nfirst:\n%s", again, out)
			}
		})
	}
}

func TestDebug1WriteAggregatesFullDumps(t *testing.T) {
	tab := stack.NewTable()
	out := dumptest.Encode(t, debug1.NewEncoder, dumptest.FullDump(tab))
	want := "goroutine profile: total 10\n" +
		"7 @ 0x0 0x0\n" +
		"#\t0x0\truntime.gopark+0xce\t/go/src/runtime/proc.go:435\n" +
		"#\t0x0\tmain.worker+0x1c\t/src/main.go:20\n\n" +
		"3 @ 0x0\n# labels: {\"svc\":\"users\"}\n" +
		"#\t0x0\tnet/http.(*conn).serve+0x5a\t/go/src/net/http/server.go:2000\n\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
	if err != nil || len(back) != 1 || back[0].Total != 10 || len(back[0].Warnings) != 0 {
		t.Fatalf("read back: %v %+v", err, back)
	}
}

func TestDebug1WriteSeveralDumpsAndLeaks(t *testing.T) {
	tab := stack.NewTable()
	a, b := dumptest.FullDump(tab), dumptest.FullDump(tab)
	for _, r := range b.Routines {
		r.Leaked = true
	}
	out := dumptest.Encode(t, debug1.NewEncoder, a, b, &stack.Dump{})
	back, err := formats.ReadAll(bytes.NewReader(out), formats.ReadOptions{Table: tab})
	if err != nil || len(back) != 3 {
		t.Fatalf("read back %d dumps: %v\n%s", len(back), err, out)
	}
	if !strings.Contains(string(out), "\ngoroutineleak profile: total 10\n") || back[1].Routines[0].Leaked != true || back[0].Routines[0].Leaked {
		t.Errorf("leak profile not written as such:\n%s", out)
	}
	if back[2].Total != 0 || len(back[2].Routines) != 0 || !strings.HasSuffix(string(out), "\ngoroutine profile: total 0\n") {
		t.Errorf("empty dump: %+v", back[2])
	}
}

func TestDebug1WriteError(t *testing.T) {
	boom := errors.New("disk full")
	enc := debug1.NewEncoder(dumptest.FailingWriter{Err: boom})
	if err := stack.WriteDump(enc, dumptest.FullDump(stack.NewTable())); !errors.Is(err, boom) {
		t.Errorf("got %v, want %v", err, boom)
	}
}
