package dumpjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/formats/internal/dumptest"
	"github.com/stackdump/stackdump/internal/codec"
	"github.com/stackdump/stackdump/stack"
)

// writeJSON encodes dumps with NewEncoder, as the door's JSON format does.
func writeJSON(t testing.TB, dumps ...*stack.Dump) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for _, d := range dumps {
		if err := stack.WriteDump(enc, d); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// readAll reads every dump of r with this package's Reader, as the door's
// ReadAll does for JSON input.
func readAll(r io.Reader, opts ReadOptions) ([]*stack.Dump, error) {
	return stack.ReadAll(NewReader(r, opts))
}

func readJSON(t testing.TB, data []byte, opts ReadOptions) []*stack.Dump {
	t.Helper()
	dumps, err := readAll(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return dumps
}

func TestJSONRoundTripEveryField(t *testing.T) {
	tab := stack.NewTable()
	want := []*stack.Dump{dumptest.GoDump(tab), dumptest.JVMDump(tab)}
	data := writeJSON(t, want...)
	if n := bytes.Count(data, []byte("\n")); n != 2 {
		t.Errorf("%d lines, want one per document (2)", n)
	}
	got := readJSON(t, data, ReadOptions{})
	dumptest.EqualDumps(t, "round trip", want, got, dumptest.DescribeOptions{Lines: true, Warnings: true})

	// Writing what was read gives the same bytes.
	if again := writeJSON(t, got...); !bytes.Equal(again, data) {
		t.Errorf("second write differs:\n%s", dumptest.DiffText(string(data), string(again)))
	}
}

func TestJSONReaderInternsStacks(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	data := writeJSON(t, d, d)
	read := stack.NewTable()
	got := readJSON(t, data, ReadOptions{Table: read})
	if len(got) != 2 {
		t.Fatalf("%d dumps, want 2", len(got))
	}
	for i := range got[0].Routines {
		a, b := got[0].Routines[i], got[1].Routines[i]
		if a.Stack != b.Stack {
			t.Errorf("routine %d: stacks of equal routines are not shared", i)
		}
	}
	_, wantStacks := tab.Len()
	if _, stacks := read.Len(); stacks > wantStacks+1 {
		t.Errorf("reader interned %d stacks, the model has %d", stacks, wantStacks)
	}
}

func TestJSONAlwaysPresentKeys(t *testing.T) {
	d := &stack.Dump{Routines: []*stack.Routine{{ID: 4, Count: 1, Stack: &stack.Stack{}}}}
	data := writeJSON(t, d)
	doc := gjson.ParseBytes(data)
	for _, k := range []string{"format", "source", "source.kind", "preamble", "goroutines", "truncated", "warnings", "total",
		"goroutines.0.id", "goroutines.0.state", "goroutines.0.stack"} {
		if !doc.Get(k).Exists() {
			t.Errorf("key %q missing from %s", k, data)
		}
	}
	for _, k := range []string{"goroutines.0.count", "goroutines.0.labels", "goroutines.0.gp", "goroutines.0.elided", "source.capture"} {
		if doc.Get(k).Exists() {
			t.Errorf("zero-valued key %q written in %s", k, data)
		}
	}
	if got := doc.Get("total").Int(); got != 1 {
		t.Errorf("total = %d for a dump without Total, want the routines' count 1", got)
	}
}

func TestJSONReadsConcatenatedAndPrettyDocuments(t *testing.T) {
	tab := stack.NewTable()
	want := dumptest.JVMDump(tab)
	one := bytes.TrimSpace(writeJSON(t, want))
	pretty := []byte(gjsonPretty(one))
	// Two documents with no separator, then a pretty-printed one after a BOM-less blank line.
	input := bytes.Join([][]byte{one, one, pretty}, nil)
	got := readJSON(t, input, ReadOptions{})
	dumptest.EqualDumps(t, "concatenated", []*stack.Dump{want, want, want}, got, dumptest.DescribeOptions{Lines: true, Warnings: true})
}

// gjsonPretty indents a document with spaces and newlines between tokens.
func gjsonPretty(b []byte) string {
	var sb strings.Builder
	inStr, esc := false, false
	for _, c := range b {
		sb.WriteByte(c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == '{' || c == '['):
			sb.WriteString("\n  ")
		case !inStr && c == ':':
			sb.WriteString(" ")
		}
	}
	return sb.String()
}

func TestJSONReadsMembersInAnyOrder(t *testing.T) {
	// Keys sorted (as jq -S writes them): goroutines come before source.
	doc := `{"format":"stackdump/v1","goroutines":[{"id":2,"stack":[{"func":"main.f","file":"/x.go","line":3}],"state":"sleep"}],` +
		`"preamble":["panic: x"],"source":{"kind":"go-traceback","runtime":"go1.26.8"},"total":1,"truncated":true,"unknown":{"a":[1,2]},"warnings":[]}`
	got := readJSON(t, []byte(doc), ReadOptions{})
	if len(got) != 1 || len(got[0].Routines) != 1 {
		t.Fatalf("got %d dumps", len(got))
	}
	d := got[0]
	if d.Source.Kind != stack.KindGoTraceback || d.Source.Runtime != "go1.26.8" || len(d.Preamble) != 1 || !d.Truncated || d.Total != 1 {
		t.Errorf("metadata not read: %+v", d)
	}
	if r := d.Routines[0]; r.ID != 2 || r.State != "sleep" || len(r.Frames()) != 1 || r.Frames()[0].Line != 3 {
		t.Errorf("routine not read: %+v", r)
	}
}

func TestJSONReaderErrorsArePositioned(t *testing.T) {
	valid := `{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[`
	for _, c := range []struct {
		name, in  string
		fatal     bool   // reading stops with an error
		offset    int64  // of the first error or warning
		msg       string // part of its message
		routines  int    // routines read
		truncated bool
	}{
		{name: "not an object", in: `[1,2]`, fatal: true, offset: 0, msg: "expected '{'"},
		{name: "no format", in: `{"goroutines":[]}`, fatal: true, offset: 0, msg: `no "format" member`},
		{name: "other format", in: `{"format":"stackdump/v9","goroutines":[]}`, fatal: true, offset: 10, msg: "unsupported document format"},
		{name: "bad element", in: valid + `{"id":1,"stack":[]},{"id":2,,},{"id":3,"stack":[]}]}`, offset: 106, msg: "element 2 is not valid JSON", routines: 2},
		{name: "wrong type", in: valid + `{"id":"x","state":"s","stack":[]}]}`, offset: 92, msg: `field "id": want an integer`, routines: 1},
		{name: "cut in element", in: valid + `{"id":1,"stack":[]},{"id":2,"st`, offset: 117, msg: "ends early", routines: 1, truncated: true},
		{name: "cut after array", in: valid + `{"id":1,"stack":[]}],"trunc`, offset: 113, msg: "ends early", routines: 1, truncated: true},
		{name: "junk between elements", in: valid + `{"id":1,"stack":[]} x {"id":2}]}`, fatal: true, offset: 106, msg: "expected ',' or ']'", routines: 1},
		{name: "too deep", in: valid + strings.Repeat("[", 100) + `]}`, fatal: true, offset: 150, msg: "nested deeper"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(c.in), ReadOptions{})
			d, err := rd.Next()
			var first error
			n := 0
			if err == nil {
				for r, err := range rd.Routines() {
					if err != nil && first == nil {
						first = err
					}
					if r != nil && err == nil {
						n++
					}
				}
				if _, err := rd.Next(); err != io.EOF && first == nil {
					first = err
				}
			} else {
				first = err
			}
			if first == nil {
				t.Fatalf("no error reading %q", c.in)
			}
			var (
				off int64
				msg string
				pe  *stack.ParseError
				se  *jsonSyntaxError
			)
			switch {
			case errors.As(first, &pe):
				off, msg = pe.Offset, pe.Msg
			case errors.As(first, &se):
				off, msg = se.Offset, se.Msg
			default:
				t.Fatalf("error %v is neither a *ParseError nor a syntax error", first)
			}
			if off != c.offset || !strings.Contains(msg, c.msg) {
				t.Errorf("error %q at offset %d, want %q at %d", msg, off, c.msg, c.offset)
			}
			if !strings.Contains(first.Error(), "offset") {
				t.Errorf("error %q does not name its offset", first)
			}
			if fatal := !codec.IsParseError(first); fatal != c.fatal {
				t.Errorf("error %v: fatal = %v, want %v", first, fatal, c.fatal)
			}
			if n != c.routines {
				t.Errorf("%d routines read, want %d", n, c.routines)
			}
			if d != nil && d.Truncated != c.truncated {
				t.Errorf("Truncated = %v, want %v", d.Truncated, c.truncated)
			}
		})
	}
}

func TestJSONReaderSkipsOversizedElement(t *testing.T) {
	big := strings.Repeat("x", 4000)
	doc := `{"format":"stackdump/v1","source":{"kind":"go-traceback"},"preamble":[],"goroutines":[` +
		`{"id":1,"state":"a","stack":[]},{"id":2,"state":"` + big + `","stack":[]},{"id":3,"state":"c","stack":[]}],"total":3}`
	dumps, err := readAll(strings.NewReader(doc), ReadOptions{MaxLineBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	d := dumps[0]
	if len(d.Routines) != 2 || d.Routines[1].ID != 3 {
		t.Fatalf("routines %v, want ids 1 and 3", d.Routines)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0].Msg, "exceeds 1024 bytes") {
		t.Errorf("warnings %v, want one about the oversized element", d.Warnings)
	}
}

func TestJSONGroupedReadBack(t *testing.T) {
	tab := stack.NewTable()
	d := dumptest.GoDump(tab)
	groups := dumptest.Groups(tab, d)
	var buf bytes.Buffer
	if err := WriteGroups(&buf, d, groups); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, buf.Bytes(), ReadOptions{})
	if len(got) != 1 {
		t.Fatalf("%d dumps", len(got))
	}
	g := got[0]
	if g.Total != d.Total || len(g.Preamble) != len(d.Preamble) || !g.Truncated || len(g.Warnings) != 2 {
		t.Errorf("metadata: total %d preamble %d truncated %v warnings %d", g.Total, len(g.Preamble), g.Truncated, len(g.Warnings))
	}
	type rec struct {
		id, count, parent int64
		state             string
		wait              int
		locked            bool
		labels            int
		frames            int
	}
	var recs []rec
	for _, r := range g.Routines {
		recs = append(recs, rec{r.ID, r.Count, r.ParentID, r.State, r.WaitMinutes, r.Locked, len(r.Labels), len(r.Frames())})
	}
	want := []rec{
		{0, 1200, 1, "chan receive", 3, false, 0, 2},
		{0, 34, 1, "select", 3, false, 0, 2},
		{1, 1, 0, "running", 0, true, 2, 4},
		{0, 3, 0, "select", 0, false, 0, 2},
	}
	if len(recs) != len(want) {
		t.Fatalf("routines %+v, want %+v", recs, want)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("routine %d = %+v, want %+v", i, recs[i], want[i])
		}
	}
	if r := g.Routines[0]; r.Stack.Frames[0].Func != "runtime.gopark" || !r.Stack.Elided || r.CreatedBy == nil || r.CreatedBy.Func != "main.startWorkers" {
		t.Errorf("group stack or creator lost: %+v", r)
	}
	if g.Routines[0].Stack != g.Routines[1].Stack {
		t.Error("routines of one group do not share its stack")
	}
}

func TestJSONCapturedAtKeepsZone(t *testing.T) {
	zone := time.FixedZone("", 2*3600)
	d := &stack.Dump{Source: stack.Source{Kind: stack.KindGoTraceback, CapturedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, zone)}}
	data := writeJSON(t, d)
	if !bytes.Contains(data, []byte(`"captured_at":"2026-01-02T03:04:05.000000006+02:00"`)) {
		t.Errorf("captured_at not RFC 3339 with nanoseconds and zone: %s", data)
	}
	got := readJSON(t, data, ReadOptions{})
	if !got[0].Source.CapturedAt.Equal(d.Source.CapturedAt) {
		t.Errorf("captured_at read as %v, want %v", got[0].Source.CapturedAt, d.Source.CapturedAt)
	}
}
