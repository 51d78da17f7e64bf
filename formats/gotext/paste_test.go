package gotext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

// Issue 22: Go tracebacks as people paste them. Every input is a real dump
// of testdata/ transformed by internal/paste; what it must read as is what
// the dump, or the part the paste kept, reads as.

func pasted(t *testing.T, file, transform string, seed uint64) (orig, form []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := paste.Lookup(transform)
	if !ok {
		t.Fatalf("no transformation %s", transform)
	}
	return data, tr.Apply(data, seed)
}

func crashOf(t *testing.T, ds []*stack.Dump) string {
	t.Helper()
	if len(ds) != 1 {
		t.Fatalf("%d dumps", len(ds))
	}
	c := CrashOf(ds[0].Preamble)
	if c == nil {
		return "none"
	}
	return string(c.Kind) + ": " + c.Message
}

// Item 2: a dump cut mid-line reads truncated, with a warning, whether the
// cut is the input's end or a closing fence's, a </details>'s or chat
// text's after it.
func TestPasteCutInsideFence(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "panic_go127.txt"))
	at := bytes.Index(data, []byte("\ngoroutine 21 "))
	cut := data[:bytes.Index(data[at:], []byte("\n\t/"))+at+len("\n\t/wo")]
	want := readGoText(t, cut)
	if !want[0].Truncated {
		t.Fatal("the cut alone reads whole")
	}
	for _, frame := range []string{"fence", "fence-lang", "chat", "details", "details-pre", "fence+chat"} {
		tr, _ := paste.Lookup(frame)
		dumptest.EqualDumps(t, frame, want, readGoText(t, tr.Apply(cut, 1)), dumptest.DescribeOptions{})
	}
}

// Item 3: grep's -- is a gap, never a frame: each goroutine read keeps
// its own frames (a prefix of the dump's), a warning names each separator,
// and the frames of a goroutine whose header grep left out are read as a
// goroutine without one, with a warning.
func TestPasteGrepSeparators(t *testing.T) {
	for _, file := range []string{"corpus/go/gostackparse_cgo.txt", "go/sigquit_go126.txt"} {
		orig, form := pasted(t, file, "grep", 1)
		byID := map[int64]*stack.Routine{}
		for _, d := range readGoText(t, orig) {
			for _, r := range d.Routines {
				byID[r.ID] = r
			}
		}
		gaps := 0
		for _, d := range readGoText(t, form) {
			for _, w := range d.Warnings {
				if strings.Contains(w.Msg, "grep's -- group separator") {
					gaps++
				}
			}
			for _, r := range d.Routines {
				o := byID[r.ID]
				if r.ID == 0 {
					continue // header left out: read without one, warned
				}
				if o == nil || len(r.Frames()) > len(o.Frames()) {
					t.Fatalf("%s: goroutine %d is none of the dump's", file, r.ID)
				}
				for i, f := range r.Frames() {
					if of := o.Frames()[i]; f.Func != of.Func || f.Line != of.Line {
						t.Errorf("%s: goroutine %d frame %d is %s, the dump's is %s", file, r.ID, i, f.Func, of.Func)
					}
				}
				if r.CreatedBy != nil && (o.CreatedBy == nil || r.CreatedBy.Func != o.CreatedBy.Func) {
					t.Errorf("%s: goroutine %d got another's creator %s", file, r.ID, r.CreatedBy.Func)
				}
			}
		}
		if n := bytes.Count(form, []byte("\n--\n")); gaps != n {
			t.Errorf("%s: %d gap warnings for %d separators", file, gaps, n)
		}
	}
}

// Item 5: the crash headline survives what stands before the crash line:
// the terminal's echo of Ctrl-\, a time stamp cut at the line's start, a
// logger's prefix on the first line, a backtick.
func TestPasteCrashLine(t *testing.T) {
	for _, c := range []struct{ file, transform string }{
		{"go/sigquit_go126.txt", "sigquit-echo"},
		{"go/sigquit_go127.txt", "sigquit-echo+log-lead+details"},
		{"go/panic_go127.txt", "cut-timestamp"},
		{"go/sigquit_go126.txt", "cut-timestamp"},
		{"go/panic_go127.txt", "log-first-line"},
		{"corpus/go/gotfmt_go7725.txt", "log-first-line"},
		{"go/nested_go126.txt", "inline-code"},
		{"go/nested_go126.txt", "fence-glued-start"},
	} {
		orig, form := pasted(t, c.file, c.transform, 1)
		want, got := readGoText(t, orig), readGoText(t, form)
		if len(want) != len(got) {
			t.Errorf("%s of %s: %d dumps, want %d", c.transform, c.file, len(got), len(want))
			continue
		}
		if w, g := CrashOf(want[0].Preamble), CrashOf(got[0].Preamble); w == nil || g == nil || w.Kind != g.Kind || w.Message != g.Message {
			t.Errorf("%s of %s: crash %+v, want %+v", c.transform, c.file, g, w)
		}
	}
}

// Item 6: a quoted Go dump reads as the dump: its crash message with no
// ">" in it, its race reports, its goroutines.
func TestPasteQuotedCrash(t *testing.T) {
	for _, tr := range []string{"quote", "quote-nested", "journald+quote", "tabs-to-spaces+quote"} {
		orig, form := pasted(t, "go/nested_go126.txt", tr, 1)
		if got, want := crashOf(t, readGoText(t, form)), crashOf(t, readGoText(t, orig)); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			t.Errorf("%s: crash %q, want %q", tr, got, want)
		}
	}
	for _, tr := range []string{"quote", "quote-nested", "journald+quote"} {
		orig, form := pasted(t, "go/race_go126.txt", tr, 1)
		dumptest.EqualDumps(t, tr+" of a race report", readGoText(t, orig), readGoText(t, form), dumptest.DescribeOptions{})
	}
}

// Item 8: a race report whose first lines the paste cut off is read (its
// remaining accesses, as a report, with a warning), and a blank line
// after every line loses no frame.
func TestPasteRaceCutAtItsTop(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "race_go126.txt"))
	start := bytes.Index(data, []byte("WARNING: DATA RACE"))
	cut := data[start+len("WARNING: DATA RACE\nWrite at 0x"):] // inside the first access line
	want := 0
	for _, d := range readGoText(t, data) {
		want += len(d.Races)
	}
	got, warned := 0, false
	for _, d := range readGoText(t, cut) {
		got += len(d.Races)
		for _, w := range d.Warnings {
			warned = warned || strings.Contains(w.Msg, "without its WARNING: DATA RACE line")
		}
	}
	if got != want || !warned {
		t.Errorf("%d races read (want %d), warned %v", got, want, warned)
	}
	orig, doubled := pasted(t, "corpus/go/gostackparse_ancestors.txt", "blank-doubled", 1)
	dumptest.EqualDumps(t, "blank-doubled", readGoText(t, orig), readGoText(t, doubled), dumptest.DescribeOptions{})
}

// Item 8: the frames of a paste that starts inside a goroutine are read as
// a goroutine without its header, with a warning that names the line.
func TestPasteStartsInsideGoroutine(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "go", "gostackparse_frameselided.txt"))
	cut := data[bytes.Index(data, []byte("\n"))+1:] // without its header line
	ds := readGoText(t, cut)
	if len(ds) != 1 || len(ds[0].Routines) != 1 || len(ds[0].Warnings) == 0 || ds[0].Warnings[0].Line != 1 {
		t.Fatalf("%d dumps: %v", len(ds), ds)
	}
	if r := ds[0].Routines[0]; r.ID != 0 || len(r.Frames()) != len(readGoText(t, data)[0].Routines[0].Frames()) {
		t.Errorf("goroutine %d with %d frames", r.ID, len(r.Frames()))
	}
}

// Item 11: a paste in reverse order (newest line first, as log viewers
// copy) is one dump, not a dump and an empty second one made of its crash
// line: read from the last line up, it is the original, with a warning
// that says so.
func TestPasteReversed(t *testing.T) {
	orig, form := pasted(t, "go/panic_go127.txt", "reversed", 1)
	ds := readGoText(t, form)
	if len(ds) != 1 {
		t.Fatalf("%d dumps", len(ds))
	}
	warned := false
	for _, w := range ds[0].Warnings {
		warned = warned || strings.Contains(w.Msg, "newest first")
	}
	want := readGoText(t, orig)
	if !warned || len(ds[0].Preamble) != len(want[0].Preamble) {
		t.Errorf("warned %v, preamble %q (want %q)", warned, ds[0].Preamble, want[0].Preamble)
	}
	// The same routines, each at its line of the reversed input.
	describe := func(d *stack.Dump) string {
		c := *d
		c.Warnings = nil
		return dumptest.Describe(&c, dumptest.DescribeOptions{})
	}
	if got, want := describe(ds[0]), describe(want[0]); got != want {
		t.Errorf("the reversed paste reads otherwise than the dump:\n%s", dumptest.DiffText(want, got))
	}
}

// A goroutine header the reader cannot set apart from the text around it
// (here a logger's field that differs on every line, so no frame is
// learnt) is never dropped silently: the lines are counted in a warning
// that names the first, and an input that holds no dump but such lines is
// an error naming them, not an empty read.
func TestPasteHiddenHeadersWarned(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "stacks2_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var form bytes.Buffer
	headers, first := 0, 0
	for i, l := range strings.SplitAfter(string(data), "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "goroutine ") {
			headers++
			if first == 0 {
				first = i + 1
			}
		}
		fmt.Fprintf(&form, "%s seq=%d\n", strings.TrimSuffix(l, "\n"), i)
	}
	if headers < 2 {
		t.Fatalf("%d goroutine headers in the dump", headers)
	}
	check := func(name string, pe *stack.ParseError, line, n int) {
		t.Helper()
		if pe == nil {
			t.Fatalf("%s: %d goroutine headers neither read nor warned about", name, n)
		}
		if pe.Line != line || !strings.Contains(pe.Msg, fmt.Sprint(n, " lines hold a goroutine header inside other text")) {
			t.Errorf("%s: %q at line %d, want %d lines from line %d", name, pe.Msg, pe.Line, n, line)
		}
	}

	// Alone: no dump, an error.
	ds, err := readAll(bytes.NewReader(form.Bytes()), ReadOptions{})
	var pe *stack.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, stack.ErrNotDump) || len(ds) != 0 {
		t.Fatalf("read %d dumps, error %v; want none and a ParseError wrapping ErrNotDump", len(ds), err)
	}
	check("alone", pe, first, headers)

	// After a dump: a warning of that dump.
	dump := data[:bytes.Index(data, []byte("\n\n"))+2]
	ds, err = readAll(bytes.NewReader(append(append([]byte(nil), dump...), form.Bytes()...)), ReadOptions{})
	if err != nil || len(ds) != 1 {
		t.Fatalf("%d dumps, error %v", len(ds), err)
	}
	var warned *stack.ParseError
	for _, w := range ds[0].Warnings {
		if strings.Contains(w.Msg, "goroutine header inside other text") {
			warned = w
		}
	}
	check("after a dump", warned, first+bytes.Count(dump, []byte("\n")), headers)
}

// NewRuntimeReader reads what the runtime wrote as NewReader does, and
// sets no paste frame aside: a reversed paste is read in its order, with
// the reader's own warning that its lines look reversed.
func TestRuntimeReader(t *testing.T) {
	read := func(path string, r *Reader) string {
		ds, err := stack.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return modelText(ds)
	}
	n := 0
	for _, path := range dumptest.GoTextFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if unpaste.Sniff(data[:min(len(data), 64<<10)], codec.Forms{Form()}) != nil {
			continue // a pasted file of the corpus: the readers differ there by design
		}
		n++
		if got, want := read(path, NewRuntimeReaderBytes(data, ReadOptions{})), read(path, NewReaderBytes(data, ReadOptions{})); got != want {
			t.Errorf("%s: NewRuntimeReaderBytes reads otherwise than NewReaderBytes:\n%s", path, dumptest.FirstDiff(want, got))
		}
		if got, want := read(path, NewRuntimeReader(bytes.NewReader(data), ReadOptions{})), read(path, NewReader(bytes.NewReader(data), ReadOptions{})); got != want {
			t.Errorf("%s: NewRuntimeReader reads otherwise than NewReader:\n%s", path, dumptest.FirstDiff(want, got))
		}
	}
	if n < 20 {
		t.Fatalf("only %d clean dumps compared", n)
	}

	_, form := pasted(t, "go/panic_go127.txt", "reversed", 1)
	ds, err := stack.ReadAll(NewRuntimeReaderBytes(form, ReadOptions{}))
	if err != nil || len(ds) == 0 {
		t.Fatalf("%d dumps, %v", len(ds), err)
	}
	var msgs []string
	for _, w := range ds[0].Warnings {
		msgs = append(msgs, w.Msg)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "lines look reversed") || strings.Contains(all, "newest first (as a log viewer shows them): read from the last line up") {
		t.Errorf("the runtime reader's warnings on a reversed paste:\n%s", all)
	}
}
