package exectrace_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/stack"
)

// The fixtures in testdata/trace were recorded by testdata/gen/trace: a
// process with goroutines parked in known states, its runtime.Stack(all)
// text taken just before a ~1 ms trace window, and the trace itself.

// readStackText reads the runtime.Stack(all) text of a fixture with the
// Go traceback reader, by goroutine id.
func readStackText(t *testing.T, path string) map[int64]*stack.Routine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{Kind: stack.KindGoTraceback})
	if err != nil || len(dumps) != 1 {
		t.Fatalf("%s: %d dumps, %v", path, len(dumps), err)
	}
	out := make(map[int64]*stack.Routine)
	for _, r := range dumps[0].Routines {
		out[r.ID] = r
	}
	return out
}

func readTraceFixture(t *testing.T, path string) *stack.Dump {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dumps, err := formats.ReadAll(f, formats.ReadOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(dumps) != 1 {
		t.Fatalf("%s: %d dumps, want 1", path, len(dumps))
	}
	return dumps[0]
}

// frameStrings returns "func file:line" for each frame: what a trace
// stack and a text stack have in common (no offsets, no inlining marks).
func frameStrings(fs []*stack.Frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Func+" "+f.File+":"+strconv.Itoa(f.Line))
	}
	return out
}

// TestTraceMatchesRuntimeStack checks every goroutine of each fixture
// against the runtime.Stack text of the same process: same ids, same
// stacks (functions, files and lines), and inferred wait reasons equal to
// the runtime's.
func TestTraceMatchesRuntimeStack(t *testing.T) {
	for _, name := range []string{"go123", "go125", "go126", "go126-long", "go127", "go127-long"} {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join("..", "..", "testdata", "trace", name)
			text := readStackText(t, base+".txt")
			d := readTraceFixture(t, base+".trace")
			if d.Source.Kind != stack.KindGoTrace || d.Source.Capture == nil || d.Source.Capture.Mode != "trace" {
				t.Fatalf("source = %+v, want kind go-trace with a trace capture", d.Source)
			}
			if !slices.Contains(d.Source.Capture.Missing, "wait_minutes") || !slices.Contains(d.Source.Capture.Missing, "args") {
				t.Errorf("Capture.Missing = %v, want wait_minutes and args named", d.Source.Capture.Missing)
			}
			if d.Total != int64(len(d.Routines)) {
				t.Errorf("Total = %d, want %d", d.Total, len(d.Routines))
			}
			got := make(map[int64]*stack.Routine)
			for _, r := range d.Routines {
				got[r.ID] = r
			}
			states := make(map[string]int)
			var stale, elided, created int
			preempted := preemptedIDs(d)
			for id, tr := range text {
				r := got[id]
				if r == nil {
					t.Errorf("goroutine %d [%s] of the text dump is missing from the trace dump", id, tr.State)
					continue
				}
				if r.Stale {
					stale++
					if r.State != "running" && r.State != "runnable" && r.State != "syscall" && r.State != "waiting" {
						t.Errorf("goroutine %d: stale with state %q", id, r.State)
					}
					continue
				}
				if preempted[id] {
					// The spinner: its stack ends at asyncPreempt (checked
					// in TestTraceNotesPreemptedGoroutines).
					continue
				}
				// A goroutine whose state is the trace's own blocked again
				// inside the window: its stack is newer than the text's, and
				// only the function it runs must be the same.
				if slices.Contains(r.Inferred, "state") || !sameEntry(tr, r) {
					compareStacks(t, id, tr, r)
				}
				if r.Stack.Elided {
					elided++
				}
				if slices.Contains(r.Inferred, "state") {
					want := tr.State
					if want == "chan receive (nil chan)" {
						// Not told apart by the stack: the documented limit.
						want = "chan receive"
					}
					if r.State != want {
						t.Errorf("goroutine %d: inferred state %q, runtime says %q", id, r.State, tr.State)
					}
					states[r.State]++
				}
			}
			for _, r := range d.Routines {
				if text[r.ID] != nil {
					continue
				}
				switch {
				case r.ParentID == 1 && r.CreatedBy != nil:
					// Created inside the window: the trace knows its creator.
					created++
					if r.CreatedBy.Func != "main.run" || r.State != "chan receive" || len(r.Inferred) != 0 {
						t.Errorf("goroutine %d created in the window: created by %v, state %q inferred %v; want main.run, chan receive from the trace",
							r.ID, r.CreatedBy, r.State, r.Inferred)
					}
				case r.Stale && len(r.Stack.Frames) == 0:
					// A runtime goroutine woken in the window: no stack
					// tells it apart from a user one.
				default:
					t.Errorf("goroutine %d [%s] is in the trace dump only: %v", r.ID, r.State, frameStrings(r.Frames()))
				}
			}
			wantStates := []string{"chan receive", "chan send", "select (no cases)", "sync.Mutex.Lock",
				"sync.RWMutex.RLock", "sync.RWMutex.Lock", "sync.Cond.Wait", "sleep", "IO wait"}
			if name == "go123" {
				wantStates = append(wantStates, "semacquire") // WaitGroup.Wait before Go 1.25
			} else {
				wantStates = append(wantStates, "sync.WaitGroup.Wait")
			}
			for _, s := range wantStates {
				if states[s] == 0 {
					t.Errorf("no goroutine with inferred state %q (got %v)", s, states)
				}
			}
			if elided != 2 {
				t.Errorf("%d goroutines with cut stacks, want the 2 deep ones", elided)
			}
			if created != 1 {
				t.Errorf("%d goroutines created in the window, want 1", created)
			}
			if stale == 0 {
				t.Error("no stale goroutine, want main and those woken in the window")
			}
			if main := got[1]; main == nil || !main.Stale || main.State != "running" {
				t.Errorf("goroutine 1 = %+v, want running and stale", main)
			}
		})
	}
}

// sameEntry reports whether two stacks have the same outermost frame's
// function: the same goroutine, possibly parked elsewhere.
func sameEntry(a, b *stack.Routine) bool {
	fa, fb := a.Frames(), b.Frames()
	return len(fa) > 0 && len(fb) > 0 && fa[len(fa)-1].Func == fb[len(fb)-1].Func
}

// compareStacks checks a trace stack against the text one: equal frames,
// or, past the tracer's 128-frame limit, equal innermost frames up to the
// text's elision marker and a trace stack marked elided at its end.
func compareStacks(t *testing.T, id int64, tr *stack.Routine, r *stack.Routine) {
	t.Helper()
	gotFrames := frameStrings(r.Frames())
	wantFrames := frameStrings(tr.Frames())
	if tr.Stack.Elided {
		if !r.Stack.Elided || r.Stack.ElidedAt != len(gotFrames) || r.Stack.ElidedCount != 0 {
			t.Errorf("goroutine %d: deep stack not marked elided at its end: %+v", id, r.Stack)
		}
		at := tr.Stack.ElidedAt
		if len(gotFrames) < at {
			t.Fatalf("goroutine %d: %d trace frames, text has %d before its elision", id, len(gotFrames), at)
		}
		gotFrames, wantFrames = gotFrames[:at], wantFrames[:at]
	} else if r.Stack.Elided {
		t.Errorf("goroutine %d: stack marked elided, text has all %d frames", id, len(wantFrames))
	}
	if !slices.Equal(gotFrames, wantFrames) {
		t.Errorf("goroutine %d [%s]: trace stack\n\t%s\nwant\n\t%s", id, tr.State,
			strings.Join(gotFrames, "\n\t"), strings.Join(wantFrames, "\n\t"))
	}
}

// preemptedIDs returns the goroutines the dump's warning names as
// asynchronously preempted.
func preemptedIDs(d *stack.Dump) map[int64]bool {
	ids := make(map[int64]bool)
	for _, w := range d.Warnings {
		if !strings.Contains(w.Msg, "asynchronously preempted") {
			continue
		}
		_, list, _ := strings.Cut(w.Msg, "(")
		list, _, _ = strings.Cut(list, ")")
		for _, f := range strings.Split(list, ", ") {
			if id, err := strconv.ParseInt(f, 10, 64); err == nil {
				ids[id] = true
			}
		}
	}
	return ids
}

func TestTraceNotesPreemptedGoroutines(t *testing.T) {
	for _, name := range []string{"go123", "go125", "go126"} {
		d := readTraceFixture(t, filepath.Join("..", "..", "testdata", "trace", name+".trace"))
		ids := preemptedIDs(d)
		if len(ids) == 0 {
			t.Errorf("%s: no warning names the preempted spinner; warnings: %v", name, d.Warnings)
		}
		for _, r := range d.Routines {
			if ids[r.ID] && (!r.Stack.Elided || r.Stack.ElidedAt != len(r.Stack.Frames)) {
				t.Errorf("%s: preempted goroutine %d: stack %+v not marked elided", name, r.ID, r.Stack)
			}
		}
	}
}

func TestTraceRefusesOldTraces(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("..", "..", "testdata", "trace", "go122.trace"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"go1.22 recorded", old, "Go 1.22"},
		{"go1.21 header", []byte("go 1.21 trace\x00\x00\x00\x00rest"), "Go 1.21"},
		{"go1.19 header", []byte("go 1.19 trace\x00\x00\x00\x00rest"), "Go 1.19"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := formats.ReadAll(bytes.NewReader(tc.in), formats.ReadOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "full") {
				t.Errorf("error %q does not name %s and suggest a full dump", msg, tc.want)
			}
		})
	}
}

// TestTraceInterning checks that stacks are interned: goroutines parked at
// the same place share one *Stack, and two readers sharing a Table agree.
func TestTraceInterning(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "trace", "go126.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tab := stack.NewTable()
	var dumps [2]*stack.Dump
	for i := range dumps {
		ds, err := formats.ReadAll(bytes.NewReader(raw), formats.ReadOptions{Table: tab})
		if err != nil {
			t.Fatal(err)
		}
		dumps[i] = ds[0]
	}
	byFunc := make(map[string]*stack.Stack)
	shared := 0
	for i, r := range dumps[0].Routines {
		if r.Stack != dumps[1].Routines[i].Stack {
			t.Errorf("goroutine %d: two reads with one Table gave different stacks", r.ID)
		}
		if len(r.Stack.Frames) == 0 || r.Stale {
			continue
		}
		key := strings.Join(frameStrings(r.Frames()), "|")
		if s, ok := byFunc[key]; ok {
			shared++
			if s != r.Stack {
				t.Errorf("goroutine %d: equal stacks not interned to one *Stack", r.ID)
			}
		}
		byFunc[key] = r.Stack
	}
	if shared == 0 {
		t.Error("no two goroutines share a stack; the fixture parks two of each kind")
	}
}

// TestTraceTruncated cuts a trace at many points: reading never panics,
// and either fails with an error or keeps a dump marked truncated.
func TestTraceTruncated(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "trace", "go126.trace"))
	if err != nil {
		t.Fatal(err)
	}
	full := readTraceFixture(t, filepath.Join("..", "..", "testdata", "trace", "go126.trace"))
	for cut := 0; cut < len(raw); cut += 97 {
		dumps, err := formats.ReadAll(bytes.NewReader(raw[:cut]), formats.ReadOptions{Kind: stack.KindGoTrace})
		switch {
		case err != nil:
			if len(dumps) != 0 {
				t.Errorf("cut at %d: error %v with %d dumps", cut, err, len(dumps))
			}
		case len(dumps) != 1:
			t.Errorf("cut at %d: %d dumps and no error", cut, len(dumps))
		case !dumps[0].Truncated && len(dumps[0].Routines) != len(full.Routines):
			t.Errorf("cut at %d: %d routines of %d, not marked truncated", cut, len(dumps[0].Routines), len(full.Routines))
		}
	}
}

func TestTraceNotATrace(t *testing.T) {
	_, err := formats.ReadAll(strings.NewReader("goroutine 1 [running]:\n"), formats.ReadOptions{Kind: stack.KindGoTrace})
	if err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("err = %v, want a missing header error", err)
	}
	_, err = formats.ReadAll(strings.NewReader("go 1.99 trace\x00\x00\x00\x00"), formats.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "1.99") {
		t.Errorf("err = %v, want an unsupported version error", err)
	}
	if errors.Is(err, io.EOF) {
		t.Errorf("err = %v, want a real error, not EOF", err)
	}
}
