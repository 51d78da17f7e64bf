package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackdump/stackdump/dedupe"
	"github.com/stackdump/stackdump/stack"
)

// runCLI runs the real root command with args and an empty stdin.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runCLIInput(t, nil, args...)
}

//go:noinline
func leakyWorker(ch chan struct{}) { <-ch }

// leak starts n goroutines blocked in leakyWorker (named
// github.com/stackdump/stackdump/cmd/stackdump.leakyWorker in a test binary) until the test ends, and
// returns once the goroutine profile shows them all.
func leak(t *testing.T, n int) {
	leaking := func() int { return strings.Count(string(goroutineProfile(t, 2)), "stackdump.leakyWorker(") }
	want := leaking() + n
	ch := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); leakyWorker(ch) }()
	}
	t.Cleanup(func() { close(ch); wg.Wait() })
	for range 1000 {
		if leaking() >= want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("goroutines did not start")
}

func goroutineProfile(t *testing.T, debug int) []byte {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, debug); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeProfile writes this process's goroutine profile to a temp file.
func writeProfile(t *testing.T, name string, debug int) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, goroutineProfile(t, debug), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiffCommandFailOnGrowth(t *testing.T) {
	leak(t, 3)
	before := writeProfile(t, "before.txt", 2)
	leak(t, 10)
	after := writeProfile(t, "after.txt", 2)

	out, _, err := runCLI(t, "diff", before, after, "--fail-on-growth", "5")
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 3 {
		t.Fatalf("diff --fail-on-growth 5: error %v; want exit status 3", err)
	}
	if !strings.Contains(ex.Error(), "stackdump.leakyWorker") || !strings.Contains(ex.Error(), "+10") {
		t.Errorf("exit message should name the grown group: %v", ex)
	}
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "stackdump.leakyWorker") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 5 || f[0] != "grown" || f[1] != "3" || f[2] != "13" || f[3] != "+10" || f[4] != "+333.3%" {
		t.Errorf("leakyWorker row %q; want grown 3 13 +10 +333.3%%\n%s", row, out)
	}

	if _, _, err := runCLI(t, "diff", before, after, "--fail-on-growth", "11"); err != nil {
		t.Errorf("diff --fail-on-growth 11 (growth was 10): %v", err)
	}
	if _, _, err := runCLI(t, "diff", before, after); err != nil {
		t.Errorf("diff without --fail-on-growth: %v", err)
	}
}

func TestDiffCommandAcrossFormats(t *testing.T) {
	leak(t, 4)
	debug2 := writeProfile(t, "d2.txt", 2)
	leak(t, 2)
	debug1 := writeProfile(t, "d1.txt", 1)

	out, _, err := runCLI(t, "diff", "--format", "json", debug2, debug1)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Old     struct{ Kind string }
		New     struct{ Kind string }
		Changes []struct {
			Change string
			Old    int64
			New    int64
			Top    struct{ Func string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Old.Kind != string(stack.KindGoTraceback) || doc.New.Kind != string(stack.KindGoDebug1) {
		t.Errorf("kinds %q, %q", doc.Old.Kind, doc.New.Kind)
	}
	found := false
	for _, c := range doc.Changes {
		if strings.HasSuffix(c.Top.Func, "stackdump.leakyWorker") {
			found = true
			if c.Change != "grown" || c.Old != 4 || c.New != 6 {
				t.Errorf("leakyWorker change %+v; want grown 4 → 6", c)
			}
		}
	}
	if !found {
		t.Errorf("no leakyWorker change between debug=2 and debug=1:\n%s", out)
	}
}

func TestDiffCommandArguments(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "corpus", "go", "gotfmt_deadlock.txt")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"diff", corpus}, "accepts 2 arg(s)"},
		{[]string{"diff", "--by", "lines", corpus, corpus}, "unknown similarity \"lines\" (want exact, stack or func)"},
		{[]string{"diff", "--format", "yaml", corpus, corpus}, "unknown format \"yaml\" (want text or json)"},
		{[]string{"diff", "-", "-"}, "only one of OLD and NEW can be standard input"},
		{[]string{"diff", "--fail-on-growth", "-1", corpus, corpus}, "want a positive count"},
		{[]string{"diff", filepath.Join(t.TempDir(), "missing.txt"), corpus}, "no such file"},
		{[]string{"diff", "-", corpus}, "standard input: no dump found"},
	}
	for _, c := range cases {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want %q", c.args, err, c.want)
		}
	}
}

// growthError decides the exit status; checked here on hand-made groups.
func TestGrowthError(t *testing.T) {
	tab := stack.NewTable()
	st := tab.Stack([]*stack.Frame{tab.Frame(stack.Frame{Func: "main.w", File: "/x.go", Line: 1})}, stack.Elision{})
	grp := func(n int) []*stack.Group {
		rs := make([]*stack.Routine, n)
		for i := range rs {
			rs[i] = &stack.Routine{ID: int64(i + 1), Stack: st}
		}
		return dedupe.Group(&stack.Dump{Routines: rs}, dedupe.Options{})
	}
	res := dedupe.Diff(grp(2), grp(7))
	var ex exitError
	if err := growthError(res, 5); !errors.As(err, &ex) || ex.code != exitGrowth || !strings.Contains(err.Error(), "grown +5 at main.w") {
		t.Errorf("growth 5, limit 5: %v", err)
	}
	if err := growthError(res, 6); err != nil {
		t.Errorf("growth 5, limit 6: %v", err)
	}
	if err := growthError(res, 0); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if err := growthError(dedupe.Diff(nil, grp(9)), 9); !errors.As(err, &ex) || !strings.Contains(err.Error(), "new +9") {
		t.Errorf("a new group of 9, limit 9: %v", err)
	}
}

func TestConvertDedupe(t *testing.T) {
	leak(t, 7)
	in := writeProfile(t, "d2.txt", 2)
	for _, format := range []string{"text", "json", "debug1"} {
		out, _, err := runCLI(t, "convert", "--dedupe", "--format", format, in)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if !strings.Contains(out, "stackdump.leakyWorker") {
			t.Errorf("%s: grouped output lacks the leakyWorker group:\n%s", format, out)
		}
	}

	// The grouped JSON reads back as counted records: diffing it against
	// the dump it came from finds no change.
	grouped := filepath.Join(t.TempDir(), "groups.json")
	if _, _, err := runCLI(t, "convert", "--dedupe", in, "-o", grouped); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "diff", "--format", "json", in, grouped)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Old, New struct{ Total int64 }
		Changes  []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Changes) != 0 || doc.Old.Total != doc.New.Total {
		t.Errorf("dump vs its own groups: %d changes, totals %d vs %d\n%s", len(doc.Changes), doc.Old.Total, doc.New.Total, out)
	}
}

func TestConvertDedupeArguments(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "corpus", "go", "gotfmt_deadlock.txt")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--dedupe", "--format", "pprof", corpus}, "--dedupe writes text, json or debug1, not pprof"},
		{[]string{"convert", "--by", "lines", corpus}, `unknown similarity "lines"`},
		{[]string{"convert", "--by", "func", "--format", "folded", corpus}, "not folded"}, // --by implies --dedupe
	}
	for _, c := range cases {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want %q", c.args, err, c.want)
		}
	}
}

// Every flag of the offline commands states its default once: `diff
// --help` said "(default from -o, else text) (default "text")".
func TestOfflineHelpDefaultsOnce(t *testing.T) {
	for _, name := range []string{"analyze", "diff", "query", "report", "convert"} {
		out, _, err := runCLI(t, name, "--help")
		if err != nil {
			t.Fatalf("%s --help: %v", name, err)
		}
		for line := range strings.Lines(out) {
			if strings.HasPrefix(strings.TrimSpace(line), "-") && strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help: %q states its default twice", name, strings.TrimSpace(line))
			}
		}
	}
}
