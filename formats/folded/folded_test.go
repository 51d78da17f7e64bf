package folded_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/folded"
	"github.com/stackdump/stackdump/formats/internal/doortest"
	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// TestFoldedFromPprof folds a real profile and compares with the folded
// lines built from google/pprof's own parse of the same file.
func TestFoldedFromPprof(t *testing.T) {
	for _, path := range []string{
		"../../testdata/pprof/go1.26.8.pb.gz",
		"../../testdata/corpus/go/profilernotes_2.net.http.pprof.goroutine.debug0.pb.gz",
	} {
		p, err := profile.Parse(bytes.NewReader(dumptest.ReadFile(t, path)))
		if err != nil {
			t.Fatal(err)
		}
		sums := map[string]int64{}
		for _, s := range p.Sample {
			var names []string
			for _, loc := range s.Location {
				for _, ln := range loc.Line {
					names = append(names, ln.Function.Name)
				}
			}
			slices.Reverse(names)
			sums[strings.Join(names, ";")] += s.Value[0]
		}
		var want []string
		for stack, n := range sums {
			want = append(want, stack+" "+strconv.FormatInt(n, 10))
		}
		slices.Sort(want)

		out := dumptest.Encode(t, folded.NewEncoder, doortest.ReadOne(t, path, formats.ReadOptions{}))
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestFoldedAggregatesAndCleans(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.FullDump(tab)
	odd := tab.Stack([]*stack.Frame{
		tab.Frame(stack.Frame{Native: true, Offset: 0x4a3b2c}),
		tab.Frame(stack.Frame{Func: "main.F[go.shape.struct { A int; B string }]", File: "/a.go", Line: 1}),
		tab.Frame(stack.Frame{Func: "main.weird\tname\n", File: "/a.go", Line: 2}),
	}, stack.Elision{})
	// The same functions at other lines fold into the same line.
	odd2 := tab.Stack([]*stack.Frame{
		tab.Frame(stack.Frame{Native: true, Offset: 0x4a3b2c}),
		tab.Frame(stack.Frame{Func: "main.F[go.shape.struct { A int; B string }]", File: "/a.go", Line: 10}),
		tab.Frame(stack.Frame{Func: "main.weird\tname\n", File: "/a.go", Line: 20}),
	}, stack.Elision{})
	d.Routines = append(d.Routines,
		&stack.Routine{Count: 3, Stack: odd},
		&stack.Routine{Count: 2, Stack: odd2},
		&stack.Routine{Count: 1, Stack: tab.Stack(nil, stack.Elision{})},
		&stack.Routine{Count: 1, Unavailable: true, Stack: tab.Stack(nil, stack.Elision{})},
	)
	out := dumptest.Encode(t, folded.NewEncoder, d)
	want := "[no frames] 1\n" +
		"[stack unavailable] 1\n" +
		"main.weird name ;main.F[go.shape.struct { A int, B string }];0x4a3b2c 5\n" +
		"main.worker;runtime.gopark 7\n" +
		"net/http.(*conn).serve 3\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	// A second dump is refused, as a pprof profile refuses it.
	enc := folded.NewEncoder(io.Discard)
	if err := stack.WriteDump(enc, d); err != nil {
		t.Fatal(err)
	}
	if err := stack.WriteDump(enc, d); !errors.Is(err, stack.ErrOneDumpPerProfile) {
		t.Errorf("second dump: %v", err)
	}
}

func TestFoldedWriteError(t *testing.T) {
	enc := folded.NewEncoder(dumptest.FailingWriter{Err: os.ErrClosed})
	if err := stack.WriteDump(enc, dumptest.FullDump(stack.NewTable())); err != os.ErrClosed {
		t.Errorf("got %v", err)
	}
}
