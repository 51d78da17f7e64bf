package goproc

import (
	"bytes"
	"context"
	"fmt"
	"os"
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
var toolchains = []string{"go1.20.14", "go1.21.13", "go1.22.12", "go1.23.12", "go1.24.11", "go1.25.14", "", "go1.27.3"}

// target is a started pidtarget with its opened binary.
type target struct {
	*livechild.PidTarget
	bin   *Binary
	build livechild.Build
}

func startTarget(t *testing.T, b livechild.Build, args ...string) *target {
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
	var env []string
	if minor, _ := rtlayout.Minor(bin.GoVersion()); minor >= 26 {
		// The runtime prints labels in its tracebacks when asked (Go
		// 1.26+): then they are compared too.
		env = append(env, "GODEBUG=tracebacklabels=1")
	}
	p := livechild.StartPidTarget(t, path, env, args...)
	return &target{PidTarget: p, bin: bin, build: b}
}

// read reads the target's goroutines with opts.
func (tg *target) read(t *testing.T, opts Options) (*stack.Dump, Stats) {
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

// compareParked checks that every goroutine the runtime printed the same
// way before and after the read (parked all along) is in got, written
// the same way, but goroutine 1 (the one that printed). It returns how
// many were compared.
func compareParked(t *testing.T, got *stack.Dump, before, after []byte, printsLabels bool) int {
	t.Helper()
	b, a, g := runtimeDump(t, before), byID(runtimeDump(t, after)), byID(got)
	n := 0
	for _, want := range b.Routines {
		if want.ID == 1 || strings.Contains(render(t, want), "main.spin(") {
			continue
		}
		if wa, ok := a[want.ID]; !ok || render(t, wa) != render(t, want) {
			t.Logf("goroutine %d moved between the runtime's two tracebacks", want.ID)
			continue
		}
		r, ok := g[want.ID]
		if !ok {
			t.Errorf("goroutine %d [%s] is missing", want.ID, want.State)
			continue
		}
		if !printsLabels {
			c := *r
			c.Labels = nil
			r = &c
		}
		if w, h := render(t, want), render(t, r); w != h {
			t.Errorf("goroutine %d:\nthe runtime:\n%s\nread:\n%s", want.ID, w, h)
		}
		n++
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

var _ = fmt.Sprint
