package goproc

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/formats/gotext"
	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
	"github.com/stackdump/stackdump/internal/livechild"
	"github.com/stackdump/stackdump/stack"
)

func TestMain(m *testing.M) {
	code := m.Run()
	livechild.CleanupBuilds()
	os.Exit(code)
}

// toolchains are the releases the tests build testdata/gen/pidtarget
// with: "" is the go command's own (go1.26 here); the others are fetched
// by GOTOOLCHAIN (.ci/run fetches them) and skipped when they cannot be.
var toolchains = []string{"go1.19.13", "go1.20.14", "go1.21.13", "go1.22.12", "go1.23.12", "go1.24.11", "go1.25.14", "", "go1.27.3"}

// target is a started pidtarget with its opened binary.
type target struct {
	*livechild.PidTarget
	bin   *Binary
	build livechild.Build
}

func startTarget(t testing.TB, b livechild.Build, args ...string) *target {
	t.Helper()
	return startTargetEnv(t, b, nil, args...)
}

func startTargetEnv(t testing.TB, b livechild.Build, extra []string, args ...string) *target {
	t.Helper()
	path := livechild.BuildPidTarget(t, b)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := OpenBinary(f)
	f.Close() // OpenBinary read what it needs
	if err != nil {
		t.Fatalf("OpenBinary(%s): %v", b, err)
	}
	// Four Ps: the spinners of -spin keep running on their threads.
	env := []string{"GOMAXPROCS=4"}
	if minor, _ := rtlayout.Minor(bin.GoVersion()); minor >= 26 {
		// The runtime prints labels in its tracebacks when asked (Go
		// 1.26+): then they are compared too.
		env = append(env, "GODEBUG=tracebacklabels=1")
	}
	for _, e := range extra {
		if v, ok := strings.CutPrefix(e, "GODEBUG="); ok && len(env) > 1 {
			env[1] += "," + v // tracebacklabels=1, and these
			continue
		}
		env = append(env, e)
	}
	p := livechild.StartPidTarget(t, path, env, args...)
	return &target{PidTarget: p, bin: bin, build: b}
}

// read reads the target's goroutines with opts.
func (tg *target) read(t testing.TB, opts Options) (*stack.Dump, Stats) {
	t.Helper()
	bias, err := LoadBias(tg.PID, tg.bin)
	if err != nil {
		t.Fatal(err)
	}
	opts.LoadBias = bias
	d, st, err := Read(context.Background(), tg.bin, NewProcessMemory(tg.PID), opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	for _, w := range d.Warnings {
		t.Logf("warning: %v", w)
	}
	return d, st
}

// runtimeDump reads the runtime's own traceback text.
func runtimeDump(t *testing.T, text []byte) *stack.Dump {
	t.Helper()
	ds, err := stack.ReadAll(gotext.NewRuntimeReaderBytes(text, gotext.ReadOptions{}))
	if err != nil || len(ds) != 1 {
		t.Fatalf("reading the runtime's traceback: %d dumps, %v", len(ds), err)
	}
	return ds[0]
}

// render writes one routine as traceback text.
func render(t *testing.T, r *stack.Routine) string {
	t.Helper()
	var b bytes.Buffer
	enc := gotext.NewEncoder(&b)
	if err := enc.BeginDump(&stack.Dump{}); err != nil {
		t.Fatal(err)
	}
	if err := enc.WriteRoutine(r); err != nil {
		t.Fatal(err)
	}
	if err := enc.EndDump(&stack.Dump{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// byID indexes a dump's routines.
func byID(d *stack.Dump) map[int64]*stack.Routine {
	m := map[int64]*stack.Routine{}
	for _, r := range d.Routines {
		m[r.ID] = r
	}
	return m
}

// compareRoutine checks that r, read, is written as the runtime wrote
// want (labels left out where the runtime does not print them).
func compareRoutine(t *testing.T, want, r *stack.Routine, printsLabels bool) {
	t.Helper()
	if r == nil {
		t.Errorf("goroutine %d [%s] is missing", want.ID, want.State)
		return
	}
	if !printsLabels || r.Scan && !want.Scan {
		c := *r
		if !printsLabels {
			c.Labels = nil
		}
		// A goroutine the GC was scanning at the moment of the read is
		// written "(scan)", as the runtime writes it then; the runtime's
		// own tracebacks, each under a stop of the world, never catch one
		// mid-scan. Everything else must match.
		c.Scan = false
		r = &c
	}
	if w, h := render(t, want), render(t, r); w != h {
		t.Errorf("goroutine %d:\nthe runtime:\n%s\nread:\n%s", want.ID, w, h)
	}
}

// compareParked checks that every goroutine the runtime printed the same
// way before and after the read (parked all along) is in got, written
// the same way, but goroutine 1 (the one that printed). It returns how
// many were compared.
func compareParked(t *testing.T, got *stack.Dump, before, after []byte, printsLabels bool) int {
	t.Helper()
	b, a, g := runtimeDump(t, before), byID(runtimeDump(t, after)), byID(got)
	n := 0
	for _, want := range b.Routines {
		// Goroutine 1, or whichever printed the traceback (running), and
		// those that never stop.
		if text := render(t, want); want.ID == 1 || want.State == "running" || strings.Contains(text, "main.spin(") || strings.Contains(text, "main.churn(") {
			continue
		}
		if wa, ok := a[want.ID]; !ok || render(t, wa) != render(t, want) {
			t.Logf("goroutine %d moved between the runtime's two tracebacks", want.ID)
			continue
		}
		compareRoutine(t, want, g[want.ID], printsLabels)
		n++
	}
	// Nothing the runtime leaves out (its own goroutines, dead ones).
	bb := byID(b)
	for _, r := range got.Routines {
		if bb[r.ID] == nil && a[r.ID] == nil {
			t.Errorf("goroutine %d is not in the runtime's tracebacks:\n%s", r.ID, render(t, r))
		}
	}
	return n
}

func TestReadLiveMatchesRuntime(t *testing.T) {
	for _, tc := range toolchains {
		for _, stripped := range []bool{false, true} {
			b := livechild.Build{Toolchain: tc, Stripped: stripped}
			t.Run(b.String(), func(t *testing.T) {
				tg := startTarget(t, b)
				before := tg.Traceback(t)
				d, st := tg.read(t, Options{})
				after := tg.Traceback(t)
				minor, _ := rtlayout.Minor(tg.bin.GoVersion())
				n := compareParked(t, d, before, after, minor >= 26)
				if n < 25 {
					t.Errorf("compared %d goroutines, want at least 25", n)
				}
				if d.Source.Capture.Mode != ModeLive || st.Stopped {
					t.Errorf("mode %q, stopped %v: want a live read", d.Source.Capture.Mode, st.Stopped)
				}
				t.Logf("%s: %d goroutines compared; %+v", tg.bin.GoVersion(), n, st)
			})
		}
	}
}

func TestReadStoppedMatchesRuntime(t *testing.T) {
	for _, tc := range toolchains {
		for _, stripped := range []bool{false, true} {
			b := livechild.Build{Toolchain: tc, Stripped: stripped}
			t.Run(b.String(), func(t *testing.T) {
				tg := startTarget(t, b, "-spin", "2")
				before := tg.Traceback(t)
				stopper := newTestStopper(t, tg.PID)
				d, st := tg.read(t, Options{Stopper: stopper})
				after := tg.Traceback(t)
				minor, _ := rtlayout.Minor(tg.bin.GoVersion())
				n := compareParked(t, d, before, after, minor >= 26)
				if n < 25 {
					t.Errorf("compared %d goroutines, want at least 25", n)
				}
				if d.Source.Capture.Mode != ModeStopped || !st.Stopped || stopper.stops != 1 {
					t.Errorf("mode %q, stopped %v, %d stops: want one stop", d.Source.Capture.Mode, st.Stopped, stopper.stops)
				}
				// The spinners: running on a thread (read from its registers),
				// or, when the scheduler took them off for a moment, runnable
				// (and maybe running again once the target resumed). At least
				// one is seen running within a few stops.
				running := checkSpinners(t, d, st)
				for try := 0; running == 0 && try < 5; try++ {
					d, st := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID)})
					running = checkSpinners(t, d, st)
				}
				if running == 0 {
					t.Error("no spinning goroutine was seen running in 6 stops")
				}
				t.Logf("%s: %d goroutines compared; %+v", tg.bin.GoVersion(), n, st)
			})
		}
	}
}

// TestReadSystemMatchesRuntime reads as GOTRACEBACK=system prints (the
// runtime's goroutines and frames, gp=, m=, fp=, sp=, pc=) and compares
// with what the child then prints on SIGQUIT with GOTRACEBACK=system
// (runtime.Stack prints at GOTRACEBACK=all whatever the setting).
func TestReadSystemMatchesRuntime(t *testing.T) {
	for _, tc := range []string{"go1.19.13", "go1.20.14", "go1.22.12", "", "go1.27.3"} {
		b := livechild.Build{Toolchain: tc, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTargetEnv(t, b, []string{"GOTRACEBACK=system"})
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID), System: true})
			quit := tg.Quit(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if minor >= 22 && !bytes.Contains(quit, []byte(" gp=0x")) {
				t.Fatalf("the runtime printed no gp= on SIGQUIT:\n%s", quit)
			}
			// The goroutines parked all along, in the runtime's SIGQUIT
			// traceback: those runtime.Stack printed the same before.
			sys := runtimeDump(t, quit)
			plain := byID(runtimeDump(t, before))
			n := 0
			got := byID(d)
			for _, want := range sys.Routines {
				if want.ID <= 1 || plain[want.ID] == nil || strings.Contains(render(t, want), "main.spin(") {
					continue
				}
				compareRoutine(t, want, got[want.ID], minor >= 26)
				n++
			}
			if n < 25 {
				t.Errorf("compared %d goroutines, want at least 25", n)
			}
			system := 0
			for _, r := range d.Routines {
				if len(r.Frames()) > 0 && strings.HasPrefix(r.Frames()[len(r.Frames())-1].Func, "runtime.") && r.ID != 1 {
					system++
				}
			}
			if system < 3 {
				t.Errorf("%d of the runtime's own goroutines read, want at least 3", system)
			}
		})
	}
}

// TestWaitMinutes reads the wait minutes the runtime would print three
// minutes from now: every goroutine parked since before the two garbage
// collections that stamp the wait time says 3.
func TestWaitMinutes(t *testing.T) {
	tg := startTarget(t, livechild.Build{})
	d, _ := tg.read(t, Options{Now: monotonicNow() + 3*60e9})
	for _, r := range d.Routines {
		if r.WaitMinutes != 0 {
			t.Errorf("goroutine %d [%s] waits %d minutes before any GC stamped it", r.ID, r.State, r.WaitMinutes)
		}
	}
	if got := tg.Send(t, "gc"); got != "done" {
		t.Fatal(got)
	}
	d, _ = tg.read(t, Options{Now: monotonicNow() + 3*60e9})
	three := 0
	for _, r := range d.Routines {
		switch r.WaitMinutes {
		case 3:
			three++
		case 0:
		default:
			t.Errorf("goroutine %d [%s] waits %d minutes, want 3 or none", r.ID, r.State, r.WaitMinutes)
		}
	}
	if three < 25 {
		t.Errorf("%d goroutines wait 3 minutes, want at least 25", three)
	}
	if d, _ := tg.read(t, Options{Now: -1}); len(d.Source.Capture.Missing) != 1 || d.Source.Capture.Missing[0] != "wait_minutes" || d.Routines[1].WaitMinutes != 0 {
		t.Errorf("Now < 0: missing %v, want wait_minutes", d.Source.Capture.Missing)
	}
}

// TestNoRetries reads a stopped target with Retries < 0: each goroutine
// is read once, and none moves, so every one is written with its stack
// (a negative Retries once skipped them all unread).
func TestNoRetries(t *testing.T) {
	tg := startTarget(t, livechild.Build{})
	d, st := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID), Retries: -1})
	if st.Skipped != 0 || st.Retried != 0 || st.Goroutines < 25 || len(d.Routines) != st.Goroutines {
		t.Errorf("%d goroutines, %d read again, %d skipped; want every one read once", st.Goroutines, st.Retried, st.Skipped)
	}
	for _, r := range d.Routines {
		if r.Unavailable || r.Stack == nil || len(r.Stack.Frames) == 0 {
			t.Errorf("goroutine %d [%s] written without its stack", r.ID, r.State)
		}
	}
}

// TestLabelsEveryRelease compares the labels read with those the child
// set, in every release: a map up to Go 1.23, a list from 1.24.
func TestLabelsEveryRelease(t *testing.T) {
	for _, tc := range toolchains {
		b := livechild.Build{Toolchain: tc, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b)
			want := tg.Labels(t)
			d, _ := tg.read(t, Options{})
			got := map[int64]string{}
			for _, r := range d.Routines {
				if len(r.Labels) == 0 {
					continue
				}
				var kv []string
				for _, l := range r.Labels {
					kv = append(kv, l.Key+"="+l.Value)
				}
				got[r.ID] = strings.Join(kv, ",")
			}
			if len(want) != 3 || !reflect.DeepEqual(got, want) {
				t.Errorf("labels read %v, set %v", got, want)
			}
		})
	}
}

// TestReadPIE reads position-independent executables, loaded at a bias.
func TestReadPIE(t *testing.T) {
	for _, tc := range []string{"go1.19.13", "go1.20.14", ""} {
		b := livechild.Build{Toolchain: tc, PIE: true, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b)
			if !tg.bin.PIE {
				t.Fatal("not a PIE")
			}
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID)})
			after := tg.Traceback(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if n := compareParked(t, d, before, after, minor >= 26); n < 25 {
				t.Errorf("compared %d goroutines, want at least 25", n)
			}
		})
	}
}

// checkSpinners checks the goroutines of -spin in a stopped read and
// returns how many were running, read from their threads' registers.
func checkSpinners(t *testing.T, d *stack.Dump, st Stats) (running int) {
	t.Helper()
	spinning := 0
	for _, r := range d.Routines {
		if r.CreatedBy == nil || r.CreatedBy.Func != "main.main" || r.ID == 1 {
			continue
		}
		spinning++
		if r.Unavailable && r.Stale {
			// Runnable when the target stopped, running by the time its
			// stack was read: written without it, marked as moved.
			continue
		}
		if r.State == "running" {
			running++
		} else if r.State != "runnable" {
			t.Errorf("spinning goroutine %d [%s]: want running or runnable", r.ID, r.State)
		}
		fs := r.Frames()
		if r.Unavailable || len(fs) == 0 || fs[len(fs)-1].Func != "main.spin" {
			t.Errorf("spinning goroutine %d does not end in main.spin:\n%s", r.ID, render(t, r))
		}
		for _, f := range fs {
			if f.Func != "main.spin" && f.Func != "main.work" {
				t.Errorf("spinning goroutine %d has frame %s:\n%s", r.ID, f.Func, render(t, r))
			}
		}
	}
	if spinning != 2 || st.Running < running {
		t.Errorf("%d spinning goroutines read, %d of them running (%d in all): want 2", spinning, running, st.Running)
	}
	return running
}

// TestReadArm64MatchesRuntime reads arm64 builds run under qemu user
// emulation (which maps them at their own addresses), without stopping
// them: link-register unwinding, 4-byte pc quanta and arm64 layouts,
// against the runtime's own traceback.
func TestReadArm64MatchesRuntime(t *testing.T) {
	for _, tc := range []string{"go1.19.13", "go1.20.14", "go1.23.12", "", "go1.27.3"} {
		b := livechild.Build{Toolchain: tc, Arch: "arm64", Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b)
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{})
			after := tg.Traceback(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if n := compareParked(t, d, before, after, minor >= 26); n < 25 {
				t.Errorf("compared %d goroutines, want at least 25", n)
			}
		})
	}
}

// TestReadFinalizersAndCleanups reads the finalizer goroutine and (Go
// 1.25+, which runs cleanups on goroutines of their own) a cleanup
// goroutine while they run user code, which the runtime prints among the
// user's goroutines (and hides otherwise).
func TestReadFinalizersAndCleanups(t *testing.T) {
	for _, tc := range toolchains {
		b := livechild.Build{Toolchain: tc, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			bin, _ := openBuild(t, b)
			minor, _ := rtlayout.Minor(bin.GoVersion())
			args := []string{"-finalizer"}
			if minor >= 25 {
				args = append(args, "-cleanup")
			}
			tg := startTarget(t, b, args...)
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{})
			after := tg.Traceback(t)
			if n := compareParked(t, d, before, after, minor >= 26); n < 26 {
				t.Errorf("compared %d goroutines, want at least 26", n)
			}
			for _, want := range []string{"main.blockInFinalizer", "main.blockInCleanup"} {
				if want == "main.blockInCleanup" && minor < 25 {
					continue
				}
				found := false
				for _, r := range d.Routines {
					if fs := r.Frames(); len(fs) > 0 && strings.HasPrefix(fs[0].Func, want) {
						found = true
					}
				}
				if !found {
					t.Errorf("no goroutine runs %s", want)
				}
			}
		})
	}
}

// TestReadWhileMoving reads a target whose churning goroutines never stop
// moving, stopped and not: each goroutine read is consistent in itself
// (its frames are those of where its state says it is), the ones that
// moved while read are read again, and the parked ones still match the
// runtime's own traceback. It reads 6 times, and on until one goroutine
// was seen moving (the target may get no processor during a read on a
// loaded machine), at most 40.
func TestReadWhileMoving(t *testing.T) {
	for _, tc := range []string{"go1.20.14", ""} {
		b := livechild.Build{Toolchain: tc}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b, "-churn", "41")
			retried, reads := 0, 0
			for ; reads < 6 || retried == 0 && reads < 40; reads++ {
				before := tg.Traceback(t)
				opts := Options{}
				if reads%2 == 1 {
					opts.Stopper = newTestStopper(t, tg.PID)
				}
				d, st := tg.read(t, opts)
				after := tg.Traceback(t)
				retried += st.Retried
				minor, _ := rtlayout.Minor(tg.bin.GoVersion())
				if n := compareParked(t, d, before, after, minor >= 26); n < 25 {
					t.Errorf("compared %d parked goroutines, want at least 25", n)
				}
				churning := 0
				for _, r := range d.Routines {
					fs := r.Frames()
					if r.CreatedBy == nil || r.CreatedBy.Func != "main.main" || r.ID == 1 {
						continue
					}
					churning++
					if r.Unavailable && r.State != "running" {
						t.Errorf("goroutine %d [%s] unavailable: only a running one is", r.ID, r.State)
					}
					if len(fs) == 0 {
						// Running on another thread, or moving every time it
						// was read: written without its stack, with a warning.
						if !r.Unavailable && !warned(d, "kept moving") {
							t.Errorf("goroutine %d [%s] has no stack and no warning", r.ID, r.State)
						}
						continue
					}
					if len(fs) == 0 || fs[len(fs)-1].Func != "main.churn" {
						t.Errorf("churning goroutine %d does not end in main.churn:\n%s", r.ID, render(t, r))
						continue
					}
					switch {
					case r.State == "chan send", r.State == "chan receive", r.State == "sleep", r.State == "running", r.State == "runnable":
					case r.State == "preempted", strings.HasPrefix(r.State, "GC "): // stopped by the collector
					default:
						t.Errorf("churning goroutine %d [%s]:\n%s", r.ID, r.State, render(t, r))
					}
				}
				if churning != 41 {
					var ids []int64
					for _, r := range d.Routines {
						ids = append(ids, r.ID)
					}
					t.Errorf("%d churning goroutines read, want 41; read %v; %+v", churning, ids, st)
				}
			}
			t.Logf("%d goroutines read again after they moved, in %d reads", retried, reads)
			if retried == 0 {
				t.Errorf("no goroutine was seen moving in %d reads of 41 that never stop", reads)
			}
		})
	}
}

// warned reports whether d has a warning that says what.
func warned(d *stack.Dump, what string) bool {
	for _, w := range d.Warnings {
		if strings.Contains(w.Msg, what) {
			return true
		}
	}
	return false
}

// TestReadSynctestBubble reads goroutines in a synctest bubble (Go
// 1.25+): `(durable)` and `synctest bubble N` in their headers, as the
// runtime prints them.
func TestReadSynctestBubble(t *testing.T) {
	for _, tc := range []string{"go1.25.14", "", "go1.27.3"} {
		b := livechild.Build{Toolchain: tc, Test: true, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b, "-test.run=^TestBubble$")
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID)})
			after := tg.Traceback(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if n := compareParked(t, d, before, after, minor >= 26); n < 4 {
				t.Errorf("compared %d goroutines, want at least 4", n)
			}
			durable, bubbled := 0, 0
			for _, r := range d.Routines {
				if r.Bubble != 0 {
					bubbled++
				}
				if r.Durable || strings.HasSuffix(r.State, "(durable)") {
					durable++
				}
			}
			if bubbled < 5 || durable < 3 {
				t.Errorf("%d goroutines in a bubble, %d durably blocked: want at least 5 and 3", bubbled, durable)
			}
		})
	}
}

// TestReadAncestors reads the creators the runtime keeps with
// GODEBUG=tracebackancestors (the "[originating from goroutine N]:"
// sections), against the runtime's own traceback.
func TestReadAncestors(t *testing.T) {
	for _, tc := range []string{"go1.19.13", "go1.20.14", "go1.22.12", "", "go1.27.3"} {
		b := livechild.Build{Toolchain: tc, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTargetEnv(t, b, []string{"GODEBUG=tracebackancestors=3"})
			before := tg.Traceback(t)
			if !bytes.Contains(before, []byte("[originating from goroutine")) {
				t.Fatalf("the runtime printed no ancestors:\n%s", before)
			}
			d, _ := tg.read(t, Options{})
			after := tg.Traceback(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if n := compareParked(t, d, before, after, minor >= 26); n < 25 {
				t.Errorf("compared %d goroutines, want at least 25", n)
			}
			with := 0
			for _, r := range d.Routines {
				if len(r.Ancestors) > 0 {
					with++
				}
			}
			if with < 25 {
				t.Errorf("%d goroutines with ancestors, want at least 25", with)
			}
		})
	}
}

// TestReadCgo reads a cgo program with a goroutine blocked in C: its Go
// frames, as the runtime prints them without a cgo symbolizer.
func TestReadCgo(t *testing.T) {
	for _, tc := range []string{"go1.19.13", "go1.20.14", "", "go1.27.3"} {
		b := livechild.Build{Toolchain: tc, Cgo: true, Stripped: true}
		t.Run(b.String(), func(t *testing.T) {
			tg := startTarget(t, b, "-cgo", "-spin", "1")
			before := tg.Traceback(t)
			d, _ := tg.read(t, Options{Stopper: newTestStopper(t, tg.PID)})
			after := tg.Traceback(t)
			minor, _ := rtlayout.Minor(tg.bin.GoVersion())
			if n := compareParked(t, d, before, after, minor >= 26); n < 26 {
				t.Errorf("compared %d goroutines, want at least 26", n)
			}
			inC := false
			for _, r := range d.Routines {
				if fs := r.Frames(); len(fs) > 0 && fs[0].Func == "main._Cfunc_sleepInC" && r.State == "syscall" {
					inC = true
				}
			}
			if !inC {
				t.Error("no goroutine in main._Cfunc_sleepInC [syscall]")
			}
		})
	}
}

// TestReadStacksInChunks reads every stack past its first 256 bytes in
// chunks, as stacks deeper than 8 MiB are read.
func TestReadStacksInChunks(t *testing.T) {
	defer func(n uint64) { stackRead = n }(stackRead)
	stackRead = 256
	tg := startTarget(t, livechild.Build{Toolchain: "go1.22.12"})
	before := tg.Traceback(t)
	d, _ := tg.read(t, Options{})
	after := tg.Traceback(t)
	if n := compareParked(t, d, before, after, false); n < 25 {
		t.Errorf("compared %d goroutines, want at least 25", n)
	}
}
