package gotext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/internal/paste"
	"github.com/stackdump/stackdump/stack"
)

// Issue 38 item 2: a crash line far from the top is found wherever it
// stands, and every line the preamble cap drops is counted in a warning.
// testdata/wild/zombie_go126.txt is real: the runtime printed the 1,024
// objects of a span (1,011 lines) before "fatal error: found pointer to
// free object" (testdata/gen/crash zombie).
func TestWildCrashLinePastPreambleCap(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "wild", "zombie_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ds := readGoText(t, data)
	if got := crashOf(t, ds); got != "fatal: found pointer to free object" {
		t.Errorf("crash %q, want the fatal error at line 1012", got)
	}
	lines := bytes.Split(data, []byte("\n"))
	crashAt := 0
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("fatal error: ")) {
			crashAt = i + 1
			break
		}
	}
	dropped := crashAt - 1 - maxPreambleLines
	var capped []string
	for _, w := range ds[0].Warnings {
		if strings.Contains(w.Msg, "preamble longer than") {
			capped = append(capped, w.Error())
			if w.Line != maxPreambleLines+1 || !strings.Contains(w.Msg, " "+strconv.Itoa(dropped)+" lines dropped") {
				t.Errorf("cap warning %v; want it at line %d counting the %d lines dropped before the crash line", w, maxPreambleLines+1, dropped)
			}
		}
	}
	if len(capped) != 1 {
		t.Errorf("%d cap warnings (%q), want 1", len(capped), capped)
	}
	if r := ds[0].Routines; len(r) == 0 || r[0].ID != 1 || r[0].State != "running" {
		t.Errorf("first goroutine %+v, want goroutine 1 running (the one that threw)", r)
	}
}

// Issue 38 item 2: a GOTRACEBACK=crash paste that starts inside an earlier
// thread block keeps the crash: a later block's "SIGQUIT: quit" and "PC="
// lines become the dump's crash, never swallowed as a block separator.
// The pastes are internal/paste's tail and cut-start of a real dump, with
// every seed that leaves one of those lines.
func TestWildThreadBlockCutKeepsCrash(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "sigquit_crash_go126.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, name := range []string{"tail", "cut-start"} {
		tr, _ := paste.Lookup(name)
		for seed := uint64(1); seed <= 40; seed++ {
			form := tr.Apply(data, seed)
			i := bytes.Index(form, []byte("\nSIGQUIT: quit\n"))
			if i < 0 {
				continue
			}
			tried++
			ds := readGoText(t, form)
			if got := crashOf(t, ds); got != "signal: SIGQUIT: quit" {
				t.Errorf("%s seed %d: crash %q, want the SIGQUIT of a later thread block", name, seed, got)
				continue
			}
			pc := bytes.SplitN(form[i+len("\nSIGQUIT: quit\n"):], []byte("\n"), 2)[0]
			if p := ds[0].Preamble; len(p) < 2 || p[len(p)-1] != string(pc) {
				t.Errorf("%s seed %d: preamble %q, want the block's %q kept with it", name, seed, p, pc)
			}
		}
	}
	if tried < 20 {
		t.Fatalf("only %d pastes hold a later block's SIGQUIT", tried)
	}
}

// A paste whose lines hold no goroutine header but lines of one (the last
// lines of a dump: a goroutine's end and the registers after it) is
// refused naming those lines, not "no dump found" (internal/paste's tail
// of a real dump, testdata/corpus/go/gotfmt_sigabrt.txt).
func TestWildOrphanLinesOnlyNamed(t *testing.T) {
	_, form := pasted(t, "corpus/go/gotfmt_sigabrt.txt", "tail", 1)
	if bytes.Contains(form, []byte("goroutine ")) {
		t.Skip("the tail holds a header: the test needs one without")
	}
	ds, err := readAll(bytes.NewReader(form), ReadOptions{})
	pe, ok := stack.AsParseError(err)
	if len(ds) != 0 || !ok || !errors.Is(err, stack.ErrNotDump) || pe.Line != 1 || !strings.Contains(pe.Msg, "whose header is not in the input") {
		t.Errorf("%d dumps, error %v; want the lines without a header named", len(ds), err)
	}
}

// Issue 38 item 5: a journald paste cut inside a goroutine, the journal
// going on after it with other lines (internal/paste's cut-log, then
// journald, of real dumps): the dump is truncated, with a warning, however
// many lines follow.
func TestWildJournaldCutMidGoroutineTruncated(t *testing.T) {
	tr, ok := paste.Lookup("cut-log+journald")
	if !ok {
		t.Fatal("no cut-log+journald combination")
	}
	for _, file := range []string{"go/sigquit_go126.txt", "go/timeout_go126.txt", "go/deadlock_go126.txt", "corpus/go/panicparse_panicweb_debug2.txt"} {
		for seed := uint64(1); seed <= 5; seed++ {
			orig, form := pasted(t, file, tr.Name, seed)
			if !tr.Applies(orig) || bytes.Equal(orig, form) {
				t.Fatalf("%s: cut-log does not apply", file)
			}
			ds := readGoText(t, form)
			if len(ds) == 0 || !ds[len(ds)-1].Truncated {
				t.Errorf("%s seed %d: a dump cut inside a goroutine reads whole", file, seed)
				continue
			}
			warned := false
			for _, w := range ds[len(ds)-1].Warnings {
				warned = warned || strings.Contains(w.Msg, "dump truncated")
			}
			if !warned {
				t.Errorf("%s seed %d: truncated without a warning that says so", file, seed)
			}
		}
	}
}

// Issue 38 item 5: a complete race report pasted in a fence closed in its
// middle, the rest rendered as Markdown and copied back without its
// indentation (internal/paste's fence-half of real race reports): read
// as the report, not truncated, its created at blocks kept.
func TestWildRaceHalfUnindented(t *testing.T) {
	for _, file := range []string{"go/race_go126.txt", "go/race_go127.txt", "go/racepanic_go127.txt"} {
		for seed := uint64(1); seed <= 4; seed++ {
			orig, form := pasted(t, file, "fence-half", seed)
			want, got := readGoText(t, orig), readGoText(t, form)
			if len(got) != len(want) {
				t.Errorf("%s seed %d: %d dumps, want %d", file, seed, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i].Truncated != want[i].Truncated || len(got[i].Races) != len(want[i].Races) || len(got[i].Routines) != len(want[i].Routines) {
					t.Errorf("%s seed %d dump %d: truncated %v, %d races, %d routines; want %v, %d, %d", file, seed, i,
						got[i].Truncated, len(got[i].Races), len(got[i].Routines), want[i].Truncated, len(want[i].Races), len(want[i].Routines))
					continue
				}
				for j, r := range want[i].Races {
					g := got[i].Races[j]
					if describeRace(g) != describeRace(r) {
						t.Errorf("%s seed %d: race %d reads\n%s\nwant\n%s", file, seed, j, describeRace(g), describeRace(r))
					}
				}
			}
		}
	}
}

// describeRace renders a race report's accesses and creators with their
// frames, its line left out.
func describeRace(r *stack.Race) string {
	var b strings.Builder
	for _, a := range r.Accesses {
		fmt.Fprintf(&b, "%s atomic=%v previous=%v addr=%#x goroutine=%d\n", a.Op, a.Atomic, a.Previous, a.Addr, a.Goroutine)
		if a.Stack != nil {
			for _, f := range a.Stack.Frames {
				fmt.Fprintf(&b, "  %s %s:%d\n", f.Func, f.File, f.Line)
			}
		}
	}
	for _, c := range r.Creators {
		fmt.Fprintf(&b, "created goroutine=%d\n", c.Goroutine)
		if c.Stack != nil {
			for _, f := range c.Stack.Frames {
				fmt.Fprintf(&b, "  %s %s:%d\n", f.Func, f.File, f.Line)
			}
		}
	}
	return b.String()
}
