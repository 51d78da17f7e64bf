package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// dumpBuilder makes in-memory dumps the way a reader does: every frame,
// stack and label set interned in one Table.
type dumpBuilder struct {
	tab  *stack.Table
	dump *stack.Dump
}

func newDump(kind stack.Kind, target string) *dumpBuilder {
	return &dumpBuilder{
		tab:  stack.NewTable(),
		dump: &stack.Dump{Source: stack.Source{Kind: kind, Target: target}},
	}
}

// stack interns "func@file:line" specs, innermost first.
func (b *dumpBuilder) stack(specs ...string) *stack.Stack {
	var frames []*stack.Frame
	for _, s := range specs {
		fn, loc, _ := strings.Cut(s, "@")
		file, line := loc, 0
		if i := strings.LastIndexByte(loc, ':'); i >= 0 {
			file = loc[:i]
			for _, c := range loc[i+1:] {
				line = line*10 + int(c-'0')
			}
		}
		frames = append(frames, b.tab.Frame(stack.Frame{Func: fn, File: file, Line: line}))
	}
	return b.tab.Stack(frames, stack.Elision{})
}

func (b *dumpBuilder) frame(spec string) *stack.Frame { return b.stack(spec).Frames[0] }

// add appends n routines with ids from id on, as copies of r.
func (b *dumpBuilder) add(id int64, n int, r stack.Routine) {
	if r.Count == 0 {
		r.Count = 1
	}
	for i := 0; i < n; i++ {
		rt := r
		if id != 0 {
			rt.ID = id + int64(i)
		}
		b.dump.Routines = append(b.dump.Routines, &rt)
		b.dump.Total += rt.Count
	}
}

// writeReport writes the page of inputs and returns it.
func writeReport(t testing.TB, inputs []Input, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, inputs, opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.String()
}

const dataOpen = `<script type="application/json" id="report-data">`

// pageData decodes the JSON document embedded in a page.
func pageData(t testing.TB, page string) *pageDoc {
	t.Helper()
	_, rest, ok := strings.Cut(page, dataOpen)
	if !ok {
		t.Fatal("page has no data element")
	}
	blob, _, ok := strings.Cut(rest, "</script>")
	if !ok {
		t.Fatal("data element is not closed")
	}
	var doc pageDoc
	if err := json.Unmarshal([]byte(blob), &doc); err != nil {
		t.Fatalf("decoding the page data: %v", err)
	}
	return &doc
}

// readCorpus reads and groups a file of the repository's testdata.
func readCorpus(t testing.TB, rel string) []Input {
	t.Helper()
	path := filepath.Join("..", "testdata", rel)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inputs, err := Read(f, filepath.Base(rel), ReadOptions{})
	if err != nil {
		t.Fatalf("reading %s: %v", rel, err)
	}
	return inputs
}

// groupsOf groups an in-memory dump as Write does for inputs without groups.
func groupsOf(d *stack.Dump) []*stack.Group { return dedupe.Group(d, dedupe.Options{}) }
