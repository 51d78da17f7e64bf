package analyze

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stackdump/stackdump/stack"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		tmp := filepath.Join(t.TempDir(), name)
		os.WriteFile(tmp, got, 0o644)
		t.Errorf("%s differs from the golden file; got in %s:\n%s", name, tmp, got)
	}
}

// renderedService is the service dump with a preamble, a warning and a
// capture time, as a reader of a crash would give it.
func renderedService(t *testing.T) *Summary {
	d := serviceDump(t)
	d.Source.Target = "http://127.0.0.1:6060/debug/stackdump"
	d.Source.CapturedAt = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	d.Preamble = []string{"SIGQUIT: quit", "PC=0x47a1c1 m=0 sigcode=0"}
	d.Warnings = []*stack.ParseError{{Line: 812, Offset: 40960, Msg: "frame without a file line", Text: "main.broken(0x1)"}}
	s := summarize(d, Options{})
	s.Source.Name = "service.txt"
	return s
}

func TestWriteTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, renderedService(t), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b[") {
		t.Error("escape codes without Color")
	}
	golden(t, "service.txt", b.Bytes())
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Colors change nothing but the escapes.
func TestWriteTextColor(t *testing.T) {
	var plain, color bytes.Buffer
	s := renderedService(t)
	WriteText(&plain, s, TextOptions{})
	WriteText(&color, s, TextOptions{Color: true})
	if !strings.Contains(color.String(), string(bold+red)+"LIKELY LEAK") {
		t.Error("the leak finding is not bold red")
	}
	if got := ansi.ReplaceAllString(color.String(), ""); got != plain.String() {
		t.Errorf("colored text without escapes differs from plain text:\n%s", got)
	}
}

func TestWriteTextFitsOneScreen(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, renderedService(t), TextOptions{})
	if n := strings.Count(b.String(), "\n"); n > 60 {
		t.Errorf("%d lines; a summary should fit one screen", n)
	}
}

// A quiet dump says what was checked and found nothing.
func TestWriteTextAllClear(t *testing.T) {
	d := dumpOf(t, stack.KindGoTraceback, g{id: 1, state: "select", frames: []string{gopark, selectgo, "main.main /m.go:1"}})
	var b bytes.Buffer
	WriteText(&b, summarize(d, Options{}), TextOptions{})
	if !strings.Contains(b.String(), "✓ no deadlock, no leaks, nothing blocked, no lock contention") {
		t.Errorf("no all-clear line:\n%s", b.String())
	}
	d = dumpOf(t, stack.KindGoDebug1, g{count: 3, frames: []string{"main.main /m.go:1"}})
	b.Reset()
	WriteText(&b, summarize(d, Options{}), TextOptions{})
	if strings.Contains(b.String(), "no leaks") || !strings.Contains(b.String(), "this input carries no states, wait minutes, creators, ids") {
		t.Errorf("a debug=1 dump cannot rule leaks out:\n%s", b.String())
	}
}

func TestWriteJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, renderedService(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "service.json", b.Bytes())
	var doc struct {
		Schema string
		Dumps  []*Summary
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != JSONSchema || len(doc.Dumps) != 1 || doc.Dumps[0].LikelyLeaks[0].Blocked != 120 || doc.Dumps[0].Contention[0].Count != 30 {
		t.Errorf("decoded %+v", doc)
	}
}

func TestWriteJSONNoSummaries(t *testing.T) {
	var b bytes.Buffer
	WriteJSON(&b)
	if got := strings.Join(strings.Fields(b.String()), ""); got != `{"schema":"stackdump-analysis/v1","dumps":[]}` {
		t.Errorf("got %s", got)
	}
}

func TestMinutes(t *testing.T) {
	for m, want := range map[int]string{0: "0m", 59: "59m", 60: "1h00m", 61: "1h01m", 1439: "23h59m", 1440: "1d00h", 1500: "1d01h", 14410: "10d00h"} {
		if got := minutes(m); got != want {
			t.Errorf("minutes(%d) = %q, want %q", m, got, want)
		}
	}
	if got := waitRange(3, 1200); got != "3m–20h00m" {
		t.Errorf("waitRange = %q", got)
	}
	if got := shorten("github.com/a/b.(*T).Method", 10); got != "…T).Method" {
		t.Errorf("shorten = %q", got)
	}
}

func TestShortFunc(t *testing.T) {
	for fn, want := range map[string]string{
		"github.com/a/demo.(*S).F":          "demo.(*S).F",
		"net/http.(*conn).serve":            "http.(*conn).serve",
		"main.main":                         "main.main",
		"main.F[go.shape.*example.com/x.T]": "main.F[go.shape.*example.com/x.T]",
		"example.com/p.G[...]":              "p.G[...]",
		"java.lang.Thread.run":              "java.lang.Thread.run",
		"a/b/c":                             "a/b/c",
	} {
		if got := shortFunc(fn); got != want {
			t.Errorf("shortFunc(%q) = %q, want %q", fn, got, want)
		}
	}
}

func TestWriteTextTruncatedAndLongPreamble(t *testing.T) {
	d := serviceDump(t)
	d.Truncated = true
	for i := range 6 {
		d.Preamble = append(d.Preamble, "line "+itoa(int64(i)))
	}
	var b bytes.Buffer
	WriteText(&b, summarize(d, Options{}), TextOptions{})
	want := "228 goroutines in 8 groups: 120 chan send, 68 chan receive, 30 sync.Mutex.Lock, 5 semacquire, 3 sleep, 1 IO wait, 1 more\n" +
		"TRUNCATED: the dump was cut short; every count is a lower bound\n" +
		"line 0\nline 1\nline 2\nline 3\n… 2 more preamble lines\n\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", b.String(), want)
	}
}

// Lists are [] in JSON when empty, never null: "none found".
func TestWriteJSONEmptyListsAreArrays(t *testing.T) {
	quiet := dumpOf(t, stack.KindJVMText, g{id: 1, state: "RUNNABLE", frames: []string{"java.lang.Thread.run Thread.java:1"}})
	var b bytes.Buffer
	if err := WriteJSON(&b, summarize(quiet, Options{})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "null") {
		t.Errorf("null in\n%s", b.String())
	}
	for _, key := range []string{"longest_waits", "leaked", "likely_leaks", "contention", "creators", "parents", "deadlocks", "blockers"} {
		if !strings.Contains(b.String(), `"`+key+`": []`) {
			t.Errorf("%s is not [] in\n%s", key, b.String())
		}
	}
}
