package gotext

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/stack"
)

// readReusing streams data with ReuseRoutines, through a bufio.Reader or,
// when mem is set, from data itself (NewReaderBytes). Each routine is
// rendered as it is yielded (the text must equal what ReadAll reads) and
// kept as a Clone (which must survive the reuse of the original).
func readReusing(t testing.TB, data []byte, opts ReadOptions, mem bool) (rendered []string, dumps []*stack.Dump) {
	t.Helper()
	opts.ReuseRoutines = true
	rd := NewReader(bytes.NewReader(data), opts)
	if mem {
		rd = NewReaderBytes(data, opts)
	}
	for {
		d, err := rd.Next()
		if err == io.EOF {
			return rendered, dumps
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		dumps = append(dumps, d)
		for r, err := range rd.Routines() {
			if err != nil {
				continue
			}
			var b strings.Builder
			writeRoutineText(&b, r)
			rendered = append(rendered, b.String())
			d.Routines = append(d.Routines, r.Clone())
		}
	}
}

// checkReuseMatchesReadAll reads data with ReadAll and reusing routines,
// through a buffer and in memory, and compares every field.
func checkReuseMatchesReadAll(t testing.TB, data []byte, opts ReadOptions) {
	t.Helper()
	want, err := readAll(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	var wantRoutines []string
	for _, d := range want {
		for _, r := range d.Routines {
			var b strings.Builder
			writeRoutineText(&b, r)
			wantRoutines = append(wantRoutines, b.String())
		}
	}
	for _, mem := range []bool{false, true} {
		rendered, got := readReusing(t, data, opts, mem)
		if len(rendered) != len(wantRoutines) {
			t.Fatalf("reusing (in memory: %v) read %d routines, ReadAll %d", mem, len(rendered), len(wantRoutines))
		}
		for i := range rendered {
			if rendered[i] != wantRoutines[i] {
				t.Fatalf("routine %d as yielded (in memory: %v):\n%s\nReadAll:\n%s", i, mem, rendered[i], wantRoutines[i])
			}
		}
		if g, w := modelText(got), modelText(want); g != w {
			t.Fatalf("clones (in memory: %v) differ from ReadAll:\n%s", mem, dumptest.FirstDiff(w, g))
		}
	}
}

// TestGoTextReuseRoutines reads every Go text input of testdata, the
// malformed ones and a generated server dump with ReuseRoutines: each
// routine, as yielded and as cloned, equals what ReadAll reads.
func TestGoTextReuseRoutines(t *testing.T) {
	files := dumptest.GoTextFiles(t)
	malformed, _ := filepath.Glob("../../testdata/corpus/go/malformed/*.txt")
	for _, path := range append(files, malformed...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkReuseMatchesReadAll(t, data, ReadOptions{})
			// A small line limit takes the long-line paths.
			checkReuseMatchesReadAll(t, data, ReadOptions{MaxLineBytes: 60})
		})
	}
	t.Run("generated", func(t *testing.T) {
		checkReuseMatchesReadAll(t, dumptest.TracebackBytes(2000), ReadOptions{})
	})
}

// checkWholeFrames reads data with the accelerator on and off
// (ReadOptions.lineByLine): the dumps, warnings included, must be the
// same.
func checkWholeFrames(t testing.TB, data []byte, opts ReadOptions) {
	t.Helper()
	read := func(slow bool) string {
		opts.lineByLine = slow
		d, err := readAll(bytes.NewReader(data), opts)
		if err != nil {
			t.Fatalf("ReadAll (frames whole: %v): %v", !slow, err)
		}
		return modelText(d)
	}
	if fast, slow := read(false), read(true); fast != slow {
		t.Fatalf("frames read whole differ from frames read line by line:\n%s", dumptest.FirstDiff(slow, fast))
	}
}

// TestGoTextWholeFrames reads every Go text input of testdata, the
// malformed ones and generated dumps with frames taken whole and line by
// line; a small line limit and CRLF line ends take the other paths, and
// the generated dump, larger than the reader's buffer, has frames cut by
// the buffer's edge.
func TestGoTextWholeFrames(t *testing.T) {
	files := dumptest.GoTextFiles(t)
	malformed, _ := filepath.Glob("../../testdata/corpus/go/malformed/*.txt")
	inputs := map[string][]byte{"generated": dumptest.TracebackBytes(3000)}
	for _, path := range append(files, malformed...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(path)] = data
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			checkWholeFrames(t, data, ReadOptions{})
			checkWholeFrames(t, data, ReadOptions{MaxLineBytes: 60})
			checkWholeFrames(t, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), ReadOptions{})
			checkWholeFrames(t, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\r\n")), ReadOptions{})
			checkWholeFrames(t, data, ReadOptions{MaxLineBytes: 200})
		})
	}
}

// TestGoTextReuseAllocations shows the point of ReuseRoutines: once a
// reader knows the stacks, streaming a dump again (the reader Reset onto
// it) allocates a fixed amount (buffers), not one routine and its values
// per goroutine.
func TestGoTextReuseAllocations(t *testing.T) {
	const n = 2000
	data := dumptest.TracebackBytes(n)
	tab := stack.NewTable()
	readers := map[bool]*Reader{}
	read := func(reuse bool) {
		rd := readers[reuse]
		if rd == nil {
			rd = NewReader(bytes.NewReader(data), ReadOptions{Table: tab, ReuseRoutines: reuse})
			readers[reuse] = rd
		} else {
			rd.Reset(bytes.NewReader(data))
		}
		got := 0
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
			for r, err := range rd.Routines() {
				if err != nil || r.Stack == nil {
					t.Fatalf("routine %d: %v", got, err)
				}
				got++
			}
		}
		if got != n {
			t.Fatalf("read %d routines, want %d", got, n)
		}
	}
	read(true)  // warm the reuse reader
	read(false) // warm the Table
	fresh := testing.AllocsPerRun(3, func() { read(false) })
	reused := testing.AllocsPerRun(3, func() { read(true) })
	if fresh < n {
		t.Errorf("reading %d routines without reuse made only %.0f allocations", n, fresh)
	}
	t.Logf("allocations per read of %d routines: %.0f fresh, %.0f reused", n, fresh, reused)
	if reused > 100 {
		t.Errorf("reading %d routines with reuse made %.0f allocations, want a fixed few", n, reused)
	}
}

// TestRoutineClone checks that a clone shares what is interned and owns
// the rest.
func TestRoutineClone(t *testing.T) {
	dumps := readGoText(t, []byte(g1+"\n"+g2))
	r := dumps[0].Routines[1]
	if r.Values == nil {
		t.Fatal("test input has no arguments")
	}
	r.Ancestors = []stack.Ancestor{{ID: 9, Stack: r.Stack, Values: r.Values}}
	r.CreatedByValues = &stack.FrameValue{PC: 0x42}
	c := r.Clone()
	if c.Stack != r.Stack || c.CreatedBy != r.CreatedBy {
		t.Error("clone does not share the interned stack and creator")
	}
	if c.Values == r.Values || &c.Values.Frames[0] == &r.Values.Frames[0] ||
		c.CreatedByValues == r.CreatedByValues ||
		&c.Ancestors[0] == &r.Ancestors[0] || c.Ancestors[0].Values == r.Values {
		t.Error("clone shares memory that is not interned")
	}
	var a, b strings.Builder
	writeRoutineText(&a, r)
	writeRoutineText(&b, c)
	if a.String() != b.String() || c.CreatedByValues.PC != 0x42 {
		t.Errorf("clone differs:\n%s\nwant\n%s", b.String(), a.String())
	}
}

// TestGoTextReuseWindowMoves reads, reusing routines, a stream whose
// line reader's window moves on inside routines whose arguments are views
// of it, their own stack or an ancestor section (GODEBUG=
// tracebackancestors): the views are copied before the window moves, and
// every routine reads as ReadAll reads it. The input is a real dump with
// ancestors, glued to itself to six times the stream's buffer (the
// window moves on where a full buffer is read after it, over the views),
// shifted by a varying run of blank lines so that the window moves at
// many places of its goroutines.
func TestGoTextReuseWindowMoves(t *testing.T) {
	one, err := os.ReadFile("../../testdata/corpus/go/gostackparse_ancestors.txt")
	if err != nil {
		t.Fatal(err)
	}
	glued := bytes.Repeat(one, 6*(256<<10)/len(one))
	for pad := 0; pad < len(one); pad += 409 {
		data := append(bytes.Repeat([]byte("\n"), pad), glued...)
		checkReuseMatchesReadAll(t, data, ReadOptions{})
		if t.Failed() {
			t.Fatalf("with %d blank lines first", pad)
		}
	}
}

// TestLineByLineOption: ReadOptions.lineByLine turns the accelerator off
// for the reader's life, Reset included, and it is on otherwise; the
// differential tests above compare the two only if the option works.
func TestLineByLineOption(t *testing.T) {
	data := dumptest.TracebackBytes(10)
	for _, lineByLine := range []bool{false, true} {
		for _, rd := range []*Reader{NewReader(bytes.NewReader(data), ReadOptions{lineByLine: lineByLine}),
			NewRuntimeReaderBytes(data, ReadOptions{lineByLine: lineByLine})} {
			if rd.dec.accel == lineByLine {
				t.Errorf("lineByLine %v: accelerator on = %v", lineByLine, rd.dec.accel)
			}
			rd.ResetBytes(data)
			if rd.dec.accel == lineByLine {
				t.Errorf("lineByLine %v, after Reset: accelerator on = %v", lineByLine, rd.dec.accel)
			}
		}
	}
}
